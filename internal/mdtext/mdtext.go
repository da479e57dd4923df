// Package mdtext prints text that does not come from plumb — a repository's
// manifests, catalogs and rules, a fork's report, an API's error — in the
// GitHub-flavoured Markdown of review comments, the summary comment and the
// job summary, so that it reads as the text it is: it cannot add HTML
// (close plumb's <details>, show an image, fake plumb's hidden <!-- plumb:…
// --> markers), link to another host, mention anyone, or start a heading
// that reads as one of plumb's sections.
//
// Text is one line of text (a table cell, a paragraph); Code is inline
// code; HTML is text inside an HTML element; Fence picks a code fence for a
// block. Untrusted renders help text written as Markdown (a repository
// catalog's remediation) as a safe subset: paragraphs, lists, emphasis,
// inline code and code blocks stay; headings become bold lines; anything
// else is escaped so it shows as written. Only plumb's own text (its
// embedded catalog) is Markdown as written, through Trusted.
//
// The rule everywhere is that escaping decides the structure: a character
// that could start a structure plumb does not keep (a '<', a '[', a '|', a
// backtick without its pair, a '~' fence) is escaped, so GitHub cannot
// read the output differently from the way it was built. Code blocks are
// rebuilt with a fence of plumb's choosing at the start of a line, longer
// than any backtick run inside, so nothing inside can close them.
package mdtext

import (
	"fmt"
	"strings"
)

// OneLine makes text one line: a line break becomes a space, another
// control character (a terminal's escape sequence) reads \xNN.
func OneLine(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	s = strings.ReplaceAll(s, "\r\n", " ")
	for _, r := range s {
		switch {
		case r == '\r' || r == '\n':
			b.WriteByte(' ')
		case isControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl reports a C0 or C1 control character other than tab, or DEL.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// Text escapes text for a Markdown table cell or paragraph: one line, no
// HTML, no Markdown syntax, no table breaks; an address (https://…, www.…,
// mailto:…) is inline code, never a link; @mentions and e-mail addresses
// are broken by a zero-width space.
func Text(s string) string {
	s = OneLine(s)
	var b strings.Builder
	// At the start of a line (a note's paragraph), not a list item nor a
	// heading.
	rest := strings.TrimLeft(s, " \t")
	b.WriteString(s[:len(s)-len(rest)])
	if m := listMarker(rest); m != "" {
		n := len(strings.TrimRight(m, " \t")) - 1
		b.WriteString(m[:n] + "\\" + m[n:])
		rest = rest[len(m):]
	}
	if strings.HasPrefix(rest, "#") {
		b.WriteString(`\#`)
		rest = rest[1:]
	}
	writeWords(&b, rest, true)
	return b.String()
}

// HTML escapes text for an HTML element such as <summary>: one line, no
// tags, no mentions. (Markdown is not read inside an HTML block.)
func HTML(s string) string {
	s = OneLine(s)
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;")
	var b strings.Builder
	escape(&b, r.Replace(s), escapeNone)
	return b.String()
}

// Code prints text as inline code that survives any backticks in it and
// does not break a table row.
func Code(s string) string {
	s = strings.ReplaceAll(OneLine(s), "|", "\\|")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Fence returns a backtick fence longer than any backtick run in body (at
// least three), so body cannot close the block.
func Fence(body string) string {
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Trusted passes plumb's own Markdown (its embedded catalog's remediation)
// through, minus what could still do harm in a comment: HTML comments,
// which could fake plumb's hidden markers, and @mentions.
func Trusted(s string) string {
	s = strings.NewReplacer("<!--", "&lt;!--", "-->", "--&gt;").Replace(s)
	var b strings.Builder
	escape(&b, s, escapeNone)
	return b.String()
}

// Untrusted renders Markdown plumb did not write as a safe subset: code
// blocks (rebuilt at the start of a line with plumb's fence; an info string
// only from a list of languages, so no diagram or map renders), inline
// code, paragraphs, list items and emphasis stay; a heading becomes a bold
// line; a setext underline, HTML, links, images, tables, quotes and
// alerts, math and ~~~ fences are escaped and show as written; addresses
// are inline code; mentions are broken. Its cost is linear in its length.
func Untrusted(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	lines := strings.Split(strings.ReplaceAll(md, "\r", "\n"), "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		line := visible(lines[i])
		indent, marker, info, ok := fenceOpening(line)
		if !ok {
			out = append(out, safeLine(line))
			continue
		}
		var body []string
		for i++; i < len(lines); i++ {
			l := visible(lines[i])
			if closesFence(l, marker) {
				break
			}
			body = append(body, dedent(l, indent))
		}
		fence := Fence(strings.Join(body, "\n"))
		out = append(out, fence+language(info))
		out = append(out, body...)
		out = append(out, fence)
	}
	return strings.Join(out, "\n")
}

// visible shows a line's control characters (other than tab) as \xNN.
func visible(line string) string { return OneLine(line) }

// fenceOpening reads a code fence's opening line (at any indentation: a
// block inside a list item is rebuilt at the start of the line): its
// indentation, the fence and the info string. A backtick fence's info
// string holds no backtick (CommonMark), else the line is text.
func fenceOpening(line string) (indent int, marker, info string, ok bool) {
	rest := strings.TrimLeft(line, " \t")
	indent = len(line) - len(rest)
	if rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return 0, "", "", false
	}
	n := 0
	for n < len(rest) && rest[n] == rest[0] {
		n++
	}
	if n < 3 || (rest[0] == '`' && strings.ContainsRune(rest[n:], '`')) {
		return 0, "", "", false
	}
	return indent, rest[:n], rest[n:], true
}

// closesFence reports whether a line closes a block opened with marker: the
// same character, at least as many, nothing else but blanks.
func closesFence(line, marker string) bool {
	t := strings.Trim(line, " \t")
	return len(t) >= len(marker) && strings.Trim(t, marker[:1]) == ""
}

// dedent removes up to n leading spaces, as the fence was indented.
func dedent(line string, n int) string {
	i := 0
	for i < n && i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[i:]
}

// languages are the info strings a rebuilt code block keeps: plain
// highlighting only (GitHub renders mermaid, geojson, topojson, stl and
// math blocks as diagrams, maps and formulas).
var languages = map[string]bool{
	"yaml": true, "yml": true, "json": true, "jsonc": true, "diff": true, "sh": true, "bash": true, "shell": true,
	"console": true, "text": true, "txt": true, "go": true, "python": true, "ini": true, "toml": true, "hcl": true,
	"xml": true, "html": true, "cel": true, "dockerfile": true, "javascript": true, "js": true, "sql": true, "properties": true,
}

func language(info string) string {
	fields := strings.Fields(info)
	if len(fields) == 0 {
		return ""
	}
	if l := strings.ToLower(fields[0]); languages[l] {
		return l
	}
	return ""
}

// safeLine renders one line outside code blocks.
func safeLine(line string) string {
	rest := strings.TrimLeft(line, " \t")
	if rest == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(line[:len(line)-len(rest)])
	if strings.Trim(rest, "-=:| \t") == "" {
		// A setext underline (the line above would become a heading), a
		// table's delimiter row, a rule: text.
		rest = strings.ReplaceAll(rest, "|", "\\|")
		if rest[0] != '\\' {
			b.WriteByte('\\')
		}
		b.WriteString(rest)
		return b.String()
	}
	for {
		m := listMarker(rest)
		if m == "" {
			break
		}
		b.WriteString(m)
		rest = rest[len(m):]
	}
	if title, ok := heading(rest); ok {
		if title == "" {
			b.WriteByte('\\')
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString("**")
		b.WriteString(inline(title))
		b.WriteString("**")
		return b.String()
	}
	b.WriteString(inline(rest))
	return b.String()
}

// listMarker returns the list item marker that starts s ("- ", "1. "), ""
// when there is none.
func listMarker(s string) string {
	n := 0
	switch {
	case len(s) >= 2 && strings.IndexByte("-*+", s[0]) >= 0:
		n = 1
	default:
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return ""
		}
		n++
	}
	if n >= len(s) || (s[n] != ' ' && s[n] != '\t') {
		return ""
	}
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return s[:n]
}

// heading reads an ATX heading ("## Title ##"): its title, "" when it has
// none.
func heading(s string) (string, bool) {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return "", false
	}
	title := strings.Trim(s[n:], " \t")
	if t := strings.TrimRight(title, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		title = strings.Trim(t, " \t")
	}
	return title, true
}

// inline renders a line's text: a backslash escape and a code span (a
// backtick run closed by the next run as long, on the line, as CommonMark
// pairs them) are kept as written; a backtick run without its pair and a
// backslash before anything else are escaped; the text between goes
// through writeWords.
func inline(s string) string {
	var b strings.Builder
	spans := newSpanFinder(s)
	start := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '\\':
			writeWords(&b, s[start:i], false)
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				b.WriteString(s[i : i+2])
				i += 2
			} else {
				b.WriteString(`\\`)
				i++
			}
			start = i
		case '`':
			writeWords(&b, s[start:i], false)
			n := run(s, i)
			if end := spans.closing(i, n); end >= 0 {
				b.WriteString(s[i : end+n])
				i = end + n
			} else {
				b.WriteString(strings.Repeat("\\`", n))
				i += n
			}
			start = i
		default:
			i++
		}
	}
	writeWords(&b, s[start:], false)
	return b.String()
}

// run is the length of the backtick run at s[i].
func run(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// spanFinder finds the run that closes a code span in linear time overall:
// the line's backtick runs by length, with a cursor per length that only
// moves forward (the runs asked about come in order).
type spanFinder struct {
	byLen  map[int][]int // run start positions, by run length
	cursor map[int]int
}

func newSpanFinder(s string) *spanFinder {
	f := &spanFinder{byLen: map[int][]int{}, cursor: map[int]int{}}
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := run(s, i)
		f.byLen[n] = append(f.byLen[n], i)
		i += n
	}
	return f
}

// closing returns where the first run of exactly n backticks after the run
// at i starts, -1 when there is none.
func (f *spanFinder) closing(i, n int) int {
	runs, c := f.byLen[n], f.cursor[n]
	for c < len(runs) && runs[c] <= i {
		c++
	}
	f.cursor[n] = c
	if c < len(runs) {
		return runs[c]
	}
	return -1
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// How much escape escapes: everything that is Markdown (Text), all but
// emphasis (Untrusted's text), or only mentions (HTML, Trusted).
type escapeLevel int

const (
	escapeNone escapeLevel = iota
	escapeButEmphasis
	escapeAll
)

// writeWords writes text word by word: a word that holds an address is
// written as inline code (its leading and trailing punctuation as text),
// so GitHub never links it; the rest is escaped.
func writeWords(b *strings.Builder, s string, all bool) {
	level := escapeButEmphasis
	if all {
		level = escapeAll
	}
	for s != "" {
		i := strings.IndexAny(s, " \t")
		if i == 0 {
			j := len(s) - len(strings.TrimLeft(s, " \t"))
			b.WriteString(s[:j])
			s = s[j:]
			continue
		}
		if i < 0 {
			i = len(s)
		}
		w := s[:i]
		s = s[i:]
		lead := len(w) - len(strings.TrimLeft(w, "(*_~\"'<["))
		core := strings.TrimRight(w[lead:], ".,:;!?)\"'*_~>]")
		if !isAddress(core) {
			escape(b, w, level)
			continue
		}
		escape(b, w[:lead], level)
		b.WriteString(Code(core))
		escape(b, w[lead+len(core):], level)
	}
}

// isAddress reports a word GitHub could turn into a link: a URL, a www.
// host, a mailto: or xmpp: address.
func isAddress(w string) bool {
	l := strings.ToLower(w)
	return strings.Contains(l, "://") || strings.Contains(l, "www.") || strings.Contains(l, "mailto:") || strings.Contains(l, "xmpp:")
}

// escape writes s with Markdown and HTML characters escaped as level says,
// and a zero-width space after every @ GitHub would read as a mention (at
// the start of a word, before a name) or as an e-mail address (a name, @,
// a domain with a dot), so a comment never notifies whoever a manifest
// names, nor links an address. An @ inside a word otherwise
// (image@sha256:...) is left alone.
func escape(b *strings.Builder, s string, level escapeLevel) {
	rs := []rune(s)
	for i, c := range rs {
		switch {
		case c == '@':
			b.WriteRune(c)
			if breaksAt(rs, i) {
				b.WriteString("\u200b")
			}
			continue
		case level == escapeNone:
		case c == '&':
			b.WriteString("&amp;")
			continue
		case c == '<':
			b.WriteString("&lt;")
			continue
		case c == '>':
			b.WriteString("&gt;")
			continue
		case strings.ContainsRune(`\`+"`"+`[]|~$`, c), level == escapeAll && (c == '*' || c == '_'):
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
}

// breaksAt reports whether the @ at rs[i] must be broken.
func breaksAt(rs []rune, i int) bool {
	if i+1 >= len(rs) || !isWordRune(rs[i+1]) {
		return false
	}
	if i == 0 || !isWordRune(rs[i-1]) {
		return true // a mention
	}
	// An e-mail address: a domain label, a dot, another label.
	j := i + 1
	for j < len(rs) && isWordRune(rs[j]) {
		j++
	}
	return j+1 < len(rs) && rs[j] == '.' && isWordRune(rs[j+1])
}

func isWordRune(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
