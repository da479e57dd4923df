package report

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/renderdiff"
	"github.com/plumb-ci/plumb/reference"
)

// hostileHelp is a check's remediation as a pull request could write it
// in its own catalog: HTML that closes plumb's blocks, images and links to
// another host, hidden markers, headings and alerts that read as plumb's,
// a table, and the same things inside code, which must stay code.
const hostileHelp = "## plumb: no findings\n" +
	"#### Findings\n" +
	"</details><img src=\"https://evil.example/x.png\"> <a href=\"https://evil.example\">click</a>\n" +
	"<!-- plumb:summary -->\n" +
	"![logo](https://evil.example/logo.png) [docs](https://evil.example/phish) https://evil.example/bare www.evil.example mailto:x@evil.example admin@evil.example\n" +
	"> [!NOTE]\n> fake note\n" +
	"Title\n=====\n" +
	"| a | b |\n| - | - |\n" +
	"- ## in a list\n" +
	"`code with <b>` and `` ` `` and an unmatched ` backtick <i>x</i> \\`<u>u</u>\\`\n" +
	"```html\n<script>inside a fence</script>\n```\n" +
	"~~~\n</details>\n~~~\n" +
	"@alice $\\href{https://evil.example}{x}$ $x^2$ &lt;img&gt;\n" +
	"[ref]: https://evil.example\n" +
	// A block indented in a list item: GitHub would end it with the item;
	// plumb rebuilds it at the start of the line, to the end.
	"- item\n   ```\n  inside\n<img src=x onerror=alert(1)>\n"

// plumbTags is the HTML plumb itself writes around a finding's text.
var plumbTags = regexp.MustCompile(`<details><summary>How to fix</summary>|</details>|<sub>|</sub>|<br>|<details><summary>[^<>]*</summary>|<code>[^<>]*</code>`)

// assertInertMarkdown fails when Markdown outside code holds raw HTML, a
// link or image, a bare URL, a heading, a setext underline, a table row or
// a mention: what GitHub would render as more than text.
func assertInertMarkdown(t *testing.T, md string) {
	t.Helper()
	fence := ""
	prev := ""
	for i, line := range strings.Split(md, "\n") {
		if fence != "" {
			if strings.TrimSpace(line) == fence {
				fence = ""
			}
			continue
		}
		if m := regexp.MustCompile("^(`{3,})").FindString(line); m != "" {
			fence = m
			continue
		}
		text := withoutCodeSpans(line)
		// Twice: plumb's own <code> inside its <summary> ("How to fix
		// <code>check/A</code>") goes first.
		text = plumbTags.ReplaceAllString(plumbTags.ReplaceAllString(text, ""), "")
		for _, bad := range []*regexp.Regexp{
			regexp.MustCompile(`<[A-Za-z/!?]`),            // HTML, comments
			regexp.MustCompile(`(^|[^\\])!?\[[^\]]*\]\(`), // links, images
			regexp.MustCompile(`(^|[^\\])\[[^\]]*\]:`),    // link definitions
			regexp.MustCompile(`(?i)(https?://|www\.|mailto:)`),
			regexp.MustCompile(`^\s*([-*+]\s+)*#{1,6}(\s|$)`), // headings
			regexp.MustCompile(`^\s*>`),                       // quotes, alerts
			regexp.MustCompile(`(^|[^\\])\|`),                 // tables
			regexp.MustCompile(`(^|[^\\\w])@\w`),              // mentions
			regexp.MustCompile(`\w@\w+\.\w`),                  // e-mail links
			regexp.MustCompile(`(^|[^\\])\$`),                 // math
			regexp.MustCompile(`^\s*~~~`),                     // fences not plumb's
		} {
			if bad.MatchString(text) {
				t.Errorf("line %d renders as more than text (%s): %q\n%s", i+1, bad, line, md)
			}
		}
		if regexp.MustCompile(`^\s*[-=]+\s*$`).MatchString(line) && strings.TrimSpace(prev) != "" {
			t.Errorf("line %d underlines a heading: %q", i+1, line)
		}
		prev = line
	}
	if fence != "" {
		t.Errorf("a code block is never closed:\n%s", md)
	}
}

// withoutCodeSpans replaces a line's code spans (CommonMark's: a backtick
// run closed by the next run of the same length) by CODE; a backslash
// before a backtick makes it text.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			b.WriteString(line[i : i+2])
			i += 2
			continue
		case line[i] != '`':
			b.WriteByte(line[i])
			i++
			continue
		}
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		closed := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := len(line[j:]) - len(strings.TrimLeft(line[j:], "`"))
			if m == n {
				closed = j
				break
			}
			j += m
		}
		if closed < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		b.WriteString("CODE")
		i = closed + n
	}
	return b.String()
}

// A check's remediation from any catalog but plumb's embedded one is
// untrusted: a review comment shows it as a safe subset of Markdown
// (emphasis, lists, code), everything else as text. plumb's own catalog
// text is trusted Markdown, but only the very text plumb ships for that
// check: the same id with another text (a repository catalog run with the
// default catalog off) is untrusted.
func TestFindingCommentShowsUntrustedHelpAsText(t *testing.T) {
	f := &finding.Finding{Source: finding.SourceCheck, RuleID: "check/REPO1", Level: finding.Warning, Title: "t", Message: "m", Help: hostileHelp,
		Location: finding.Location{File: "a.yaml", Line: 1}}
	md := FindingComment(f)
	assertInertMarkdown(t, md)
	for _, want := range []string{
		"**plumb: no findings**", "**in a list**", "`code with <b>`", "`` ` ``",
		"```html\n<script>inside a fence</script>\n```", "```\n</details>\n```", "```\ninside\n<img src=x onerror=alert(1)>\n```",
		"`https://evil.example/bare`", "`www.evil.example`", "@\u200balice", `\[ref\]:`, "&amp;lt;img&amp;gt;", `\$\\` + "`href{https://evil.example}{x}$`", `\$x^2\$`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}

	embedded, ok := reference.CheckRemediation("A10001")
	if !ok || !strings.Contains(embedded, "## Why") {
		t.Fatalf("the embedded catalog's A10001 remediation: %q %v", embedded, ok)
	}
	f = &finding.Finding{Source: finding.SourceCheck, RuleID: "check/A10001", Level: finding.Warning, Message: "m", Help: embedded}
	if md := FindingComment(f); !strings.Contains(md, strings.TrimSpace(embedded)) {
		t.Errorf("plumb's own remediation is not shown as written:\n%s", md)
	}
	for _, other := range []*finding.Finding{
		{Source: finding.SourceCheck, RuleID: "check/A10001", Message: "m", Help: embedded + "\n<img src=x>"},
		{Source: finding.SourceCheck, RuleID: "check/REPO1", Message: "m", Help: embedded},
	} {
		md := FindingComment(other)
		assertInertMarkdown(t, md)
		if !strings.Contains(md, "**Why**") {
			t.Errorf("%s: the heading is not demoted:\n%s", other.RuleID, md)
		}
	}
}

// Every string of a report — what the fork-safe poster reads from a
// fork's artifact — is text in the summary: messages, rule ids, titles,
// objects, paths, locations, suppression reasons, the rendered diff's
// target names and base commit.
func TestMarkdownShowsEveryReportStringAsText(t *testing.T) {
	r := withRenderedDiff(prReport(), 1)
	evil := "x</details><img src=https://evil.example/i.png>\n\n### plumb: no findings\n\n<!-- plumb:summary --> [a](https://evil.example) https://evil.example @alice"
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Message, f.Title, f.RuleID = evil, evil, "check/"+evil
		f.Object.Name, f.Object.Target, f.Location.File = evil, evil, evil
		f.Path = manifest.Path{manifest.Key(evil)}
		if f.Suppressed != nil {
			f.Suppressed.Reason, f.Suppressed.Until = evil, evil
		}
	}
	sec := r.Sections[renderdiff.SectionName].(*renderdiff.Section)
	sec.Targets[1].Name, sec.BaseCommit = evil, evil
	md := Markdown{BlobURL: "https://github.com/acme/shop/blob/abc123/"}.Render(r)
	// What is code is inert; the links plumb makes to the repository's
	// files are its own (their addresses escape the path).
	repoLink := regexp.MustCompile(`\]\(https://github\.com/acme/shop/blob/abc123/[^)\s]*\)`)
	codeSpan := regexp.MustCompile("(`+)[^`]*?(`+)|<code>[^<]*</code>")
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		if fence != "" {
			if line == fence {
				fence = ""
			}
			continue
		}
		if m := regexp.MustCompile("^`{3,}").FindString(line); m != "" {
			fence = m
			continue
		}
		text := codeSpan.ReplaceAllString(repoLink.ReplaceAllString(line, "]"), "CODE")
		text = strings.ReplaceAll(text, `\]`, "")
		if strings.HasPrefix(line, "<details>") {
			// An HTML block: its text is not Markdown (no links, no
			// autolinks), and its HTML is escaped.
			text = strings.ReplaceAll(text, "](", "")
		}
		for _, bad := range []string{"<img", "<!--", "](", " @alice", "</details><"} {
			if strings.Contains(text, bad) {
				t.Errorf("line %d holds %q: %s", i+1, bad, line)
			}
		}
		if i > 0 && strings.HasPrefix(text, "### plumb") {
			t.Errorf("line %d is a second title: %s", i+1, line)
		}
		// An HTML block's text (a <summary>) is not linked.
		if !strings.HasPrefix(line, "<details>") && strings.Contains(text, "https://evil") {
			t.Errorf("line %d links another host: %s", i+1, line)
		}
	}
}

// SARIF's help.markdown, which code scanning renders, is the same safe
// subset for untrusted help, and plumb's own as written.
func TestSARIFHelpMarkdownOfUntrustedHelp(t *testing.T) {
	embedded, _ := reference.CheckRemediation("A10001")
	r := &Report{Version: "1", Findings: []finding.Finding{
		{Source: finding.SourceCheck, RuleID: "check/REPO1", Level: finding.Warning, Message: "m", Help: hostileHelp, Location: finding.Location{File: "a.yaml", Line: 1}},
		{Source: finding.SourceCheck, RuleID: "check/A10001", Level: finding.Warning, Message: "m", Help: embedded, Location: finding.Location{File: "a.yaml", Line: 2}},
	}}
	var b strings.Builder
	if err := (SARIF{}).Write(&b, r); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text     string `json:"text"`
							Markdown string `json:"markdown"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(b.String()), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("%v\n%s", err, b.String())
	}
	seen := 0
	for _, rule := range log.Runs[0].Tool.Driver.Rules {
		switch rule.ID {
		case "check/REPO1":
			seen++
			assertInertMarkdown(t, rule.Help.Markdown)
			if rule.Help.Text != hostileHelp {
				t.Errorf("help.text is not the text as written: %q", rule.Help.Text)
			}
		case "check/A10001":
			seen++
			if rule.Help.Markdown != embedded {
				t.Errorf("plumb's own help.markdown: %q", rule.Help.Markdown)
			}
		}
	}
	if seen != 2 {
		t.Errorf("rules: %+v", log.Runs[0].Tool.Driver.Rules)
	}
}

// A comment about several problems shows every repository string as text
// too: messages, titles, rule ids, objects and remediations.
func TestFindingsCommentShowsUntrustedTextAsText(t *testing.T) {
	mk := func(rule string) *finding.Finding {
		return &finding.Finding{Source: finding.SourceCheck, RuleID: rule, Level: finding.Warning,
			Title: "<b>t</b> @alice", Message: hostileHelp, Help: hostileHelp,
			Object:   finding.ObjectID{Kind: "Deployment", Namespace: "<img src=x>", Name: "[x](https://evil.example)", Target: "<!-- plumb:summary -->"},
			Location: finding.Location{File: "a.yaml", Line: 1}}
	}
	md := FindingsComment([]CommentItem{{Finding: mk("check/REPO1")}, {Finding: mk("check/<REPO2>"), Note: "_trusted note_"}}, "")
	assertInertMarkdown(t, md)
	if !strings.HasPrefix(md, "**2 problems here:**\n") || !strings.Contains(md, " — _trusted note_\n") || strings.Count(md, "<details><summary>How to fix") != 2 {
		t.Errorf("comment:\n%s", md)
	}
}
