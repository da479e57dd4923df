package renderdiff

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

// writeYAML prints a JSON-compatible tree (map[string]any, []any, string,
// int64, float64, bool, nil) as block YAML with sorted keys and two-space
// indentation. It is the diff's normal form, written here rather than with
// yaml.v3's encoder because that encoder allocates heavily per object and a
// pull request against a large repository diffs thousands of objects. The
// output reads back to the same tree (tests check this); strings are
// printed plain only when that is unambiguous, otherwise double-quoted, and
// multi-line strings as literal blocks.
func writeYAML(b *strings.Builder, v any) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) > 0 {
			writeMap(b, t, 0, false)
			return
		}
	case []any:
		if len(t) > 0 {
			writeList(b, t, 0, false)
			return
		}
	}
	writeScalar(b, v, 2)
	b.WriteByte('\n')
}

func indent(b *strings.Builder, n int) {
	for range n {
		b.WriteByte(' ')
	}
}

// writeMap prints a non-empty mapping at column indent; inline means the
// first key goes on the current line (after a sequence's "- ").
func writeMap(b *strings.Builder, m map[string]any, col int, inline bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 || !inline {
			indent(b, col)
		}
		writeString(b, k, col, true)
		b.WriteByte(':')
		writeValue(b, m[k], col+2)
	}
}

// writeList prints a non-empty sequence at column col.
func writeList(b *strings.Builder, l []any, col int, inline bool) {
	for i, item := range l {
		if i > 0 || !inline {
			indent(b, col)
		}
		b.WriteString("- ")
		switch t := item.(type) {
		case map[string]any:
			if len(t) > 0 {
				writeMap(b, t, col+2, true)
				continue
			}
		case []any:
			if len(t) > 0 {
				writeList(b, t, col+2, true)
				continue
			}
		}
		writeScalar(b, item, col+2)
		b.WriteByte('\n')
	}
}

// writeValue prints a mapping value after its "key:".
func writeValue(b *strings.Builder, v any, col int) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) > 0 {
			b.WriteByte('\n')
			writeMap(b, t, col, false)
			return
		}
	case []any:
		if len(t) > 0 {
			b.WriteByte('\n')
			// Sequences are indented under their key, as yaml.v3 prints them
			// with an indentation of two.
			writeList(b, t, col, false)
			return
		}
	}
	b.WriteByte(' ')
	writeScalar(b, v, col)
	b.WriteByte('\n')
}

// writeScalar prints a scalar, an empty mapping or an empty sequence; col
// is the indentation of a literal block's lines.
func writeScalar(b *strings.Builder, v any, col int) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case int:
		b.WriteString(strconv.Itoa(t))
	case float64:
		b.WriteString(formatFloat(t))
	case string:
		writeString(b, t, col, false)
	case map[string]any:
		b.WriteString("{}")
	case []any:
		b.WriteString("[]")
	default:
		// Not a JSON-compatible value; print it quoted rather than fail.
		b.WriteString(strconv.Quote(strings.TrimSpace(stringOf(t))))
	}
}

func stringOf(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return "?"
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	case math.IsNaN(f):
		return ".nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0" // keep it a float when read back
	}
	return s
}

// writeString prints a string plain when it cannot be read as anything else,
// as a literal block when it spans lines (not for keys), and double-quoted
// otherwise.
func writeString(b *strings.Builder, s string, col int, key bool) {
	switch {
	case plainSafe(s):
		b.WriteString(s)
	case !key && literalSafe(s) && !workflowcmd.HasCommandLine(s):
		// A line of a literal block that starts "::" would run as a
		// workflow command wherever the diff is printed to an Actions log.
		writeLiteral(b, s, col)
	default:
		b.WriteString(strconv.Quote(s))
	}
}

// ambiguousWords are the plain scalars YAML 1.1 or 1.2 reads as something
// other than a string, in lower case (matched case-insensitively, which
// quotes a few strings needlessly and none wrongly).
var ambiguousWords = map[string]bool{
	"~": true, "null": true, "true": true, "false": true, "y": true, "yes": true, "n": true, "no": true,
	"on": true, "off": true, ".inf": true, "+.inf": true, "-.inf": true, ".nan": true, "<<": true, "=": true,
}

// plainSafe reports whether s can be printed without quotes and read back
// as the same string. It is conservative: when in doubt, quote.
func plainSafe(s string) bool {
	if s == "" || len(s) <= 5 && ambiguousWords[strings.ToLower(s)] || strings.ContainsAny(s[:1], " \t-?:,[]{}#&*!|>'\"%@`") && !leadingDashOK(s) {
		return false
	}
	last := s[len(s)-1]
	if last == ' ' || last == ':' {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	for _, r := range s {
		if r == '\t' || !unicode.IsPrint(r) && r != ' ' || r == utf8.RuneError || r == '\ufeff' {
			return false
		}
	}
	return !looksNumeric(s)
}

// leadingDashOK accepts strings such as "-Xmx512m" or "--flag": a dash that
// is not followed by a space starts a plain scalar (unless it looks like a
// number, which looksNumeric catches).
func leadingDashOK(s string) bool {
	return s[0] == '-' && len(s) > 1 && s[1] != ' ' && s != "---"
}

// looksNumeric reports strings that YAML could read as a number, a date or
// a base-60 value: starting with a digit, a sign or a dot, and made of
// characters that such values use. Quantities like 128Mi and 100m, and
// versions with letters, stay plain.
func looksNumeric(s string) bool {
	if !strings.ContainsAny(s[:1], "0123456789+-.") {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEFxXoObB_+-.:eEtTzZ ", r) {
			return false
		}
	}
	return true
}

// literalSafe reports whether a multi-line string can be printed as a
// literal block and read back unchanged.
func literalSafe(s string) bool {
	if !strings.Contains(s, "\n") || s[0] == ' ' || s[0] == '\n' || s[0] == '\t' {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) && r != ' ' || r == utf8.RuneError || r == '\ufeff' {
			return false
		}
	}
	// Lines that are only spaces would be read as part of the indentation.
	for _, line := range strings.Split(s, "\n") {
		if line != "" && strings.TrimLeft(line, " ") == "" {
			return false
		}
	}
	return true
}

func writeLiteral(b *strings.Builder, s string, col int) {
	lines := strings.Split(s, "\n")
	switch trailing := len(s) - len(strings.TrimRight(s, "\n")); {
	case trailing == 0:
		b.WriteString("|-")
	case trailing == 1:
		b.WriteString("|")
	default:
		b.WriteString("|+") // keep the extra newlines, printed as empty lines
	}
	if strings.HasSuffix(s, "\n") {
		lines = lines[:len(lines)-1] // the caller writes the last newline
	}
	for _, line := range lines {
		b.WriteByte('\n')
		if line != "" {
			indent(b, col)
			b.WriteString(line)
		}
	}
}
