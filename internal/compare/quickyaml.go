package compare

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// quickYAML prints a value tree (jsonTyped's output) byte for byte as
// goyaml.v2 prints it, for the trees where that is simple: every string one
// goyaml.v2 prints plain (letters, digits and "._/-:" with nothing that
// could read as another type), or a multi-line string it prints as a
// literal block with no special line; no list directly in a list. ok is
// false otherwise, and kubectlYAML prints with goyaml.v2. Printing the
// drifted objects' two sides took a third of the comparison once their
// parsing was fast; a differential test holds this to goyaml.v2's bytes.
func quickYAML(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return "", false
	}
	var b strings.Builder
	if !writeQuickMap(&b, m, 0, false) {
		return "", false
	}
	return b.String(), true
}

// writeQuickMap writes a non-empty mapping with its keys at column indent;
// inline starts the first key where the writer is (a list item's line).
func writeQuickMap(b *strings.Builder, m map[string]any, indent int, inline bool) bool {
	keys := make([]string, 0, len(m))
	for k := range m {
		if len(k) > 120 || !plainString(k) {
			return false // quoted, or a complex key ("? ") past 128 bytes
		}
		keys = append(keys, k)
	}
	sort.Sort(v2KeyOrder(keys))
	for i, k := range keys {
		if i > 0 || !inline {
			writeIndent(b, indent)
		}
		b.WriteString(k)
		b.WriteByte(':')
		switch x := m[k].(type) {
		case map[string]any:
			if len(x) == 0 {
				b.WriteString(" {}\n")
				continue
			}
			b.WriteByte('\n')
			if !writeQuickMap(b, x, indent+2, false) {
				return false
			}
		case []any:
			if len(x) == 0 {
				b.WriteString(" []\n")
				continue
			}
			b.WriteByte('\n')
			if !writeQuickList(b, x, indent) { // level with its key
				return false
			}
		default:
			if !writeQuickScalar(b, x, indent) {
				return false
			}
		}
	}
	return true
}

// writeQuickList writes a non-empty list with its dashes at column indent.
func writeQuickList(b *strings.Builder, l []any, indent int) bool {
	for _, item := range l {
		writeIndent(b, indent)
		b.WriteByte('-')
		switch x := item.(type) {
		case map[string]any:
			if len(x) == 0 {
				b.WriteString(" {}\n")
				continue
			}
			b.WriteByte(' ')
			if !writeQuickMap(b, x, indent+2, true) {
				return false
			}
		case []any:
			return false // "- - x"
		default:
			if !writeQuickScalar(b, x, indent) {
				return false
			}
		}
	}
	return true
}

// writeQuickScalar writes " value\n" for a scalar of a key or list item
// at column indent.
func writeQuickScalar(b *strings.Builder, v any, indent int) bool {
	switch x := v.(type) {
	case nil:
		b.WriteString(" null\n")
	case bool:
		b.WriteByte(' ')
		b.WriteString(strconv.FormatBool(x))
		b.WriteByte('\n')
	case int64:
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(x, 10))
		b.WriteByte('\n')
	case uint64:
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(x, 10))
		b.WriteByte('\n')
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		b.WriteByte('\n')
	case string:
		switch {
		case x == "":
			b.WriteString(" \"\"\n")
		case plainString(x):
			b.WriteByte(' ')
			b.WriteString(x)
			b.WriteByte('\n')
		default:
			return writeLiteral(b, x, indent)
		}
	default:
		return false
	}
	return true
}

// writeLiteral writes a multi-line string as goyaml.v2's literal block
// ("|" when it ends in one line break, "|-" when it ends in none), its
// lines indented two columns deeper than indent. ok is false for any
// other string, and for lines goyaml.v2 would write otherwise (a space at
// the start of the text or the end of a line, a character that is not
// printable ASCII, line breaks at the end beyond one).
func writeLiteral(b *strings.Builder, s string, indent int) bool {
	if !strings.Contains(s, "\n") || s[0] == ' ' || s[0] == '\n' || strings.HasSuffix(s, "\n\n") || strings.HasSuffix(s, " ") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			if i > 0 && s[i-1] == ' ' {
				return false
			}
			continue
		}
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	body := strings.TrimSuffix(s, "\n")
	if body == s {
		b.WriteString(" |-\n")
	} else {
		b.WriteString(" |\n")
	}
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" {
			writeIndent(b, indent+2)
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	return true
}

func writeIndent(b *strings.Builder, n int) {
	for ; n > 0; n-- {
		b.WriteByte(' ')
	}
}

// plainString reports whether goyaml.v2 prints s plain, for the strings
// this printer takes: letters, digits and "._/-:" only (so nothing to
// quote, fold or escape), not ending in ":", starting with a letter, "/"
// or "_" (and then not one of YAML 1.1's booleans and nulls), or with a
// digit or "-" followed by a character that is not a space, when s holds
// a letter that no number or timestamp has (so goyaml.v2's resolve reads
// it as a string).
func plainString(s string) bool {
	if s == "" || s[len(s)-1] == ':' {
		return false
	}
	wordy := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			if !strings.ContainsRune("abcdefABCDEFxXoObBtTzZ", rune(c)) {
				wordy = true
			}
		case '0' <= c && c <= '9', c == '.', c == '_', c == '/', c == '-', c == ':':
		default:
			return false
		}
	}
	switch c := s[0]; {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		return !yaml11Words[s]
	case c == '/' || c == '_':
		return true
	case '0' <= c && c <= '9', c == '-':
		return wordy && len(s) > 1
	}
	return false
}

// yaml11Words are the plain scalars starting with a letter that goyaml.v2
// reads as a boolean or null.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true,
	"on": true, "On": true, "ON": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"false": true, "False": true, "FALSE": true, "off": true, "Off": true, "OFF": true,
	"null": true, "Null": true, "NULL": true,
}

// v2KeyOrder is goyaml.v2's order of string keys (its keyList): runs of
// digits compare as numbers, letters before other characters.
type v2KeyOrder []string

func (l v2KeyOrder) Len() int      { return len(l) }
func (l v2KeyOrder) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l v2KeyOrder) Less(i, j int) bool {
	ar, br := []rune(l[i]), []rune(l[j])
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al := unicode.IsLetter(ar[i])
		bl := unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}
