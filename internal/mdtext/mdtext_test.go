package mdtext

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

const zwsp = "\u200b"

// Text: one line in which nothing is Markdown, HTML, a link or a mention.
func TestTextIsText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"<!-- plumb:summary -->", "&lt;!-- plumb:summary --&gt;"},
		{"</details><img src=x>", "&lt;/details&gt;&lt;img src=x&gt;"},
		{"see https://evil.example/x.", "see `https://evil.example/x`."},
		{"(www.evil.example)", "(`www.evil.example`)"},
		{"HTTPS://EVIL.EXAMPLE", "`HTTPS://EVIL.EXAMPLE`"},
		{"mailto:a@evil.example", "`mailto:a@evil.example`"},
		{"[a](https://evil.example)", "\\[`a](https://evil.example`)"},
		{"![i](x.png)", "!\\[i\\](x.png)"},
		{"mail admin@evil.example", "mail admin@" + zwsp + "evil.example"},
		{"cc @alice and @org/team", "cc @" + zwsp + "alice and @" + zwsp + "org/team"},
		{"nginx@sha256:0123abcd", "nginx@sha256:0123abcd"},
		{"# plumb: no findings", "\\# plumb: no findings"},
		{"a | b", "a \\| b"},
		{"$x^2$", "\\$x^2\\$"},
		{"**bold** _it_ ~~s~~ `c`", "\\*\\*bold\\*\\* \\_it\\_ \\~\\~s\\~\\~ \\`c\\`"},
		{"a\nb\r\nc\rd\x1b[31m", "a b c d\\\\x1b\\[31m"},
		{"1. ## x", "1\\. \\## x"},
		{"  - # x", "  \\- \\# x"},
		{"&lt;", "&amp;lt;"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

// HTML: text inside an element.
func TestHTML(t *testing.T) {
	if got, want := HTML("a<b>\"c\" &\n@bob"), "a&lt;b&gt;&quot;c&quot; &amp; @"+zwsp+"bob"; got != want {
		t.Errorf("HTML = %q, want %q", got, want)
	}
}

// Untrusted keeps the safe subset and escapes the rest, line by line.
func TestUntrustedMarkdown(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"paragraphs, emphasis, lists and code stay", "Set **requests** and _limits_:\n\n- `cpu: 250m`\n1. then `kubectl top`",
			"Set **requests** and _limits_:\n\n- `cpu: 250m`\n1. then `kubectl top`"},
		{"headings become bold", "## Why\nbecause\n#### plumb: 3 errors ####\n- ## in a list\n##", "**Why**\nbecause\n**plumb: 3 errors**\n- **in a list**\n\\##"},
		{"a hashtag is no heading", "#tag and C#", "#tag and C#"},
		{"setext underlines", "Title\n=====\nOther\n---", "Title\n\\=====\nOther\n\\---"},
		{"tables", "| a | b |\n| --- | :-: |", "\\| a \\| b \\|\n\\| --- \\| :-: \\|"},
		{"HTML and comments", "</details><img src=x> <!-- plumb:finding -->", "&lt;/details&gt;&lt;img src=x&gt; &lt;!-- plumb:finding --&gt;"},
		{"links and images", "![i](/x.png) [d](/p) [r]: /x <https://a.example>", "!\\[i\\](/x.png) \\[d\\](/p) \\[r\\]: /x &lt;`https://a.example`&gt;"},
		{"addresses", "go to www.evil.example or https://evil.example/x).", "go to `www.evil.example` or `https://evil.example/x`)."},
		{"quotes and alerts", "> [!NOTE]\n>quoted", "&gt; \\[!NOTE\\]\n&gt;quoted"},
		{"mentions and e-mail", "@alice a@evil.example", "@" + zwsp + "alice a@" + zwsp + "evil.example"},
		{"math", "$\\sqrt{2}$", "\\$\\\\sqrt{2}\\$"},
		{"strikethrough and tilde fences off", "~~s~~", "\\~\\~s\\~\\~"},
		{"backslashes", "\\<img> a\\b \\`x`", "\\<img&gt; a\\\\b \\`x\\`"},
		{"code spans as CommonMark pairs them", "`<b>` `` ` `` `a``b` `unclosed <i>", "`<b>` `` ` `` `a``b` \\`unclosed &lt;i&gt;"},
		{"a fence keeps its body", "```yaml\na: <b>\n</details>\n```", "```yaml\na: <b>\n</details>\n```"},
		{"a fence gets a longer fence", "~~~\n```\n~~~", "````\n```\n````"},
		{"diagrams are plain code", "```mermaid\ngraph TD\n```\n```geojson x\n{}\n```", "```\ngraph TD\n```\n```\n{}\n```"},
		{"an indented fence starts the line", "- step\n   ```\n   x\n<img>\n   ```\nafter", "- step\n```\nx\n<img>\n```\nafter"},
		{"an unclosed fence ends at the end", "```\n<img>", "```\n<img>\n```"},
		{"a backtick info string is no fence", "```a```", "```a```"},
		{"a fence after a list marker is text", "- ```\n<img>", "- \\`\\`\\`\n&lt;img&gt;"},
		{"line endings", "a\r\nb\rc", "a\nb\nc"},
		{"control characters", "a\x1b[2Jb", "a\\\\x1b\\[2Jb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Untrusted(c.in); got != c.want {
				t.Errorf("Untrusted(%q)\n = %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// Trusted passes plumb's Markdown as written, minus HTML comments and
// mentions.
func TestTrusted(t *testing.T) {
	in := "## Why\n[docs](https://kubernetes.io/docs/) <!-- plumb:summary --> @alice\n```yaml\na: b\n```"
	want := "## Why\n[docs](https://kubernetes.io/docs/) &lt;!-- plumb:summary --&gt; @" + zwsp + "alice\n```yaml\na: b\n```"
	if got := Trusted(in); got != want {
		t.Errorf("Trusted = %q, want %q", got, want)
	}
}

// Hostile sizes cost linear time: a megabyte of backticks, of unclosed
// fences, of headings.
func TestUntrustedIsLinear(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("` ", 1<<19), strings.Repeat("```\n", 1<<18), strings.Repeat("## a\n", 1<<18),
		strings.Repeat("a`", 1<<19) + strings.Repeat("``", 1<<18), strings.Repeat("@a ", 1<<18), strings.Repeat("https://x ", 1<<17),
		runsOfEveryLength(1 << 20),
	} {
		start := time.Now()
		out := Untrusted(in)
		if d := time.Since(start); d > 2*time.Second || len(out) > 8*len(in) {
			t.Errorf("%d bytes (%.20q…): %v, %d bytes out", len(in), in, d, len(out))
		}
	}
}

// runsOfEveryLength is backtick runs of lengths 1, 2, 3, ... on one line,
// none closed: a search for each run's pair that scans the rest of the line
// is quadratic.
func runsOfEveryLength(size int) string {
	var b strings.Builder
	for n := 1; b.Len() < size; n++ {
		b.WriteString(strings.Repeat("`", n) + " ")
	}
	return b.String()
}

// inert fails when Markdown outside code holds what GitHub renders as more
// than text.
func inert(md string) string {
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		if fence != "" {
			if line == fence {
				fence = ""
			}
			continue
		}
		if m := fenceRE.FindString(line); m != "" && !strings.ContainsRune(line[len(m):], '`') {
			fence = m
			continue
		}
		text := withoutCode(line)
		for _, bad := range inertRules {
			if bad.MatchString(text) {
				return bad.String() + " in " + line
			}
		}
	}
	return ""
}

var (
	fenceRE    = regexp.MustCompile("^`{3,}")
	inertRules = []*regexp.Regexp{
		regexp.MustCompile(`<[A-Za-z/!?]`),
		regexp.MustCompile(`(^|[^\\])(\\\\)*!?\[`),
		regexp.MustCompile(`(?i)(https?://|www\.\w|mailto:\w)`),
		regexp.MustCompile(`^\s*([-*+]\s+|\d+[.)]\s+)*#{1,6}(\s|$)`),
		regexp.MustCompile(`^\s*>`),
		regexp.MustCompile(`(^|[^\\])(\\\\)*\|`),
		regexp.MustCompile(`(^|[^\w\\` + zwsp + `-])@\w`),
		regexp.MustCompile(`(^|[^\\])(\\\\)*[~$]`),
	}
)

// withoutCode removes a line's code spans and backslash escapes.
func withoutCode(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		switch {
		case line[i] == '\\' && i+1 < len(line) && isASCIIPunct(line[i+1]):
			if isWordRune(rune(line[i+1])) {
				b.WriteByte(line[i+1]) // "\_" is still a word's character
			} else {
				b.WriteString("%")
			}
			i += 2
		case line[i] == '`':
			n := run(line, i)
			if end := newSpanFinder(line).closing(i, n); end >= 0 {
				b.WriteString("%")
				i = end + n
			} else {
				b.WriteString(line[i : i+n])
				i += n
			}
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	return b.String()
}

// Whatever the input, the output of Untrusted is inert.
func FuzzUntrusted(f *testing.F) {
	for _, s := range []string{
		"## h\n</details>", "```\n<b>\n```", "~~~x\n```\n", "- a\n   ```\n<img>", "`a``b` `", "[a](b) ![c](d) <e>", "a\n===", "| a |\n|---|",
		"@x a@b.c https://x www.y mailto:z", "\\`<i>`", "> [!NOTE]", "$x$", "1. ## x", "```a```", "\r\n<b>\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Untrusted(in)
		if why := inert(out); why != "" {
			t.Fatalf("Untrusted(%q) = %q: %s", in, out, why)
		}
		if why := inert(Text(in)); why != "" || strings.ContainsAny(Text(in), "\n\r") {
			t.Fatalf("Text(%q) = %q: %s", in, Text(in), why)
		}
	})
}
