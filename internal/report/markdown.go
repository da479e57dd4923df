package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/mdtext"
	"github.com/plumb-ci/plumb/reference"
)

// Markdown writes the summary people read on a pull request: counts by
// engine and level (new and fixed in PR mode), a table of the most
// important findings linking to file#Lline, the drift diffs in collapsible
// blocks, then the fixed and suppressed findings. The action posts it as
// the summary comment and writes it to the job summary.
//
// Everything that comes from the repository (messages, paths, diffs) is
// escaped: it cannot add HTML, links, mentions or hidden markers.
type Markdown struct {
	// MaxBytes bounds the output (0: unbounded); what does not fit is left
	// out, least important first, and Truncated says where to find it.
	MaxBytes int
	// MaxFindings bounds the findings table (0: 100 rows).
	MaxFindings int
	// BlobURL, when set, links locations: BlobURL + path + "#Lline", e.g.
	// "https://github.com/o/r/blob/<sha>/".
	BlobURL string
	// BaseBlobURL links the fixed findings, whose locations are the base
	// revision's, the same way (pull-request mode; empty: not linked, as a
	// link to the head would point at the wrong file or line).
	BaseBlobURL string
	// Context is a trusted Markdown line shown under the title (commit, run).
	Context string
	// Notes are trusted Markdown paragraphs shown at the end (what was
	// posted where, why posting failed).
	Notes []string
	// Truncated is trusted Markdown added when something was left out,
	// e.g. "The job summary lists every finding."
	Truncated string
}

const defaultMarkdownFindings = 100

// Write implements Sink.
func (m Markdown) Write(w io.Writer, r *Report) error {
	_, err := io.WriteString(w, m.Render(r))
	return err
}

// Render builds the Markdown document.
func (m Markdown) Render(r *Report) string {
	open := byImportance(r.Findings, isOpen)
	var fixed, suppressed []*finding.Finding
	for i := range r.Findings {
		f := &r.Findings[i]
		switch {
		case f.Suppressed != nil:
			suppressed = append(suppressed, f)
		case f.Status == finding.StatusFixed:
			fixed = append(fixed, f)
		}
	}

	var head strings.Builder
	m.writeHead(&head, r, open, fixed, suppressed)
	head.WriteString(changeSummary(r))

	var tail strings.Builder
	for _, n := range m.Notes {
		if strings.TrimSpace(n) != "" {
			tail.WriteString(n)
			tail.WriteString("\n\n")
		}
	}

	doc := &budgetDoc{max: m.MaxBytes}
	doc.force(head.String())
	// Room for the notes and the pointer to the rest, whatever happens.
	pointerRoom := 200 + len(m.Truncated)
	doc.reserve = tail.Len() + pointerRoom

	var left []string
	maxRows := orDefault(m.MaxFindings, defaultMarkdownFindings)
	if len(open) > 0 {
		// A finding that reads alike in several render targets (a base
		// shared by overlays) is one row naming the targets, as in the text
		// report and the annotations.
		groups := groupAlike(open)
		rows := make([]string, 0, min(len(groups), maxRows))
		for _, g := range groups[:min(len(groups), maxRows)] {
			rows = append(rows, m.findingRow(g))
		}
		n := doc.section("#### Findings\n\n| | location | rule | message |\n| --- | --- | --- | --- |\n", "\n", rows)
		shown := 0
		for _, g := range groups[:n] {
			shown += 1 + len(g.alike)
		}
		if shown < len(open) {
			left = append(left, fmt.Sprintf("%d of %s", len(open)-shown, plural(len(open), "finding")))
		}
	}

	var diffs []*finding.Finding
	for _, f := range open {
		if f.Diff != "" {
			diffs = append(diffs, f)
		}
	}
	if len(diffs) > 0 {
		n := m.diffSection(doc, diffs)
		if n < len(diffs) {
			left = append(left, fmt.Sprintf("%d of %s", len(diffs)-n, plural(len(diffs), "diff")))
		}
	}

	for _, group := range []struct {
		title  string
		fs     []*finding.Finding
		reason bool
	}{
		{"Fixed by this change", fixed, false},
		{"Suppressed", suppressed, true},
	} {
		if len(group.fs) == 0 {
			continue
		}
		header := fmt.Sprintf("#### %s (%d)\n\n<details><summary>%s</summary>\n\n| location | rule | %s |\n| --- | --- | --- |\n",
			group.title, len(group.fs), plural(len(group.fs), "finding"), map[bool]string{false: "message", true: "reason"}[group.reason])
		rows := make([]string, 0, len(group.fs))
		for _, f := range group.fs {
			text := f.Message
			if group.reason && f.Suppressed != nil {
				text = f.Suppressed.Reason
				if f.Suppressed.Until != "" {
					text += " (until " + f.Suppressed.Until + ")"
				}
			}
			loc := m.locationLink(f.Location)
			if f.Status == finding.StatusFixed {
				loc = linkLocation(m.BaseBlobURL, f.Location)
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |\n", loc, codeSpan(f.RuleID), mdText(text)))
		}
		n := doc.section(header, "\n</details>\n\n", rows)
		if n < len(rows) {
			left = append(left, fmt.Sprintf("%d of %d %s", len(rows)-n, len(rows), strings.ToLower(group.title)))
		}
	}

	if !m.renderedChanges(doc, r) {
		left = append(left, "the rendered diff")
	}

	doc.reserve = 0
	if len(left) > 0 {
		p := "_Not shown here: " + strings.Join(left, ", ") + "._"
		if m.Truncated != "" {
			p += " " + m.Truncated
		}
		doc.force(p + "\n\n")
	}
	doc.force(tail.String())
	return doc.String()
}

func (m Markdown) writeHead(b *strings.Builder, r *Report, open, fixed, suppressed []*finding.Finding) {
	var counts LevelCounts
	for _, f := range open {
		counts.Add(f.Level)
	}
	title := "no findings"
	if counts.Total() > 0 {
		title = counts.String()
	}
	// In pull-request mode the title says first what the change did.
	if pr := prCounts(open, fixed); pr != "" {
		title += " · " + pr
	}
	fmt.Fprintf(b, "### plumb: %s\n\n", title)
	if m.Context != "" {
		b.WriteString(m.Context)
		b.WriteString("\n\n")
	}

	// Counts by engine (the finding's source) and level.
	type row struct {
		LevelCounts
		new, fixed int
	}
	bySource := map[string]*row{}
	get := func(src string) *row {
		if bySource[src] == nil {
			bySource[src] = &row{}
		}
		return bySource[src]
	}
	statuses := false
	for _, f := range open {
		rw := get(f.Source)
		rw.Add(f.Level)
		if f.Status != "" {
			statuses = true
		}
		if f.Status == finding.StatusNew {
			rw.new++
		}
	}
	for _, f := range fixed {
		get(f.Source).fixed++
		statuses = true
	}
	if len(bySource) > 0 {
		sources := make([]string, 0, len(bySource))
		for s := range bySource {
			sources = append(sources, s)
		}
		slices.Sort(sources)
		b.WriteString("| engine | errors | warnings | notes |")
		if statuses {
			b.WriteString(" new | fixed |")
		}
		b.WriteString("\n| --- | ---: | ---: | ---: |")
		if statuses {
			b.WriteString(" ---: | ---: |")
		}
		b.WriteByte('\n')
		var total row
		for _, s := range sources {
			rw := bySource[s]
			total.Errors += rw.Errors
			total.Warnings += rw.Warnings
			total.Notes += rw.Notes
			total.new += rw.new
			total.fixed += rw.fixed
			fmt.Fprintf(b, "| %s | %d | %d | %d |", codeSpan(firstNonEmpty(s, "other")), rw.Errors, rw.Warnings, rw.Notes)
			if statuses {
				fmt.Fprintf(b, " %d | %d |", rw.new, rw.fixed)
			}
			b.WriteByte('\n')
		}
		if len(sources) > 1 {
			fmt.Fprintf(b, "| **total** | **%d** | **%d** | **%d** |", total.Errors, total.Warnings, total.Notes)
			if statuses {
				fmt.Fprintf(b, " **%d** | **%d** |", total.new, total.fixed)
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}

	s := r.Summarize()
	facts := []string{
		plural(len(r.Objects), "object") + " in " + plural(len(r.Targets), "target"),
	}
	if s.Files > 0 {
		facts = append(facts, plural(s.Files, "file")+" with findings")
	}
	if len(suppressed) > 0 {
		facts = append(facts, strconv.Itoa(len(suppressed))+" suppressed")
	}
	if s.InputErrors > 0 {
		facts = append(facts, plural(s.InputErrors, "input")+" could not be read as written")
	}
	if s.SkippedFiles > 0 {
		facts = append(facts, plural(s.SkippedFiles, "file")+" skipped (not Kubernetes objects)")
	}
	b.WriteString(strings.Join(facts, " · "))
	b.WriteString("\n\n")
	if len(r.Fetched) > 0 {
		b.WriteString("<details><summary>" + plural(len(r.Fetched), "remote chart") + " rendered</summary>\n\n")
		for _, f := range r.Fetched {
			b.WriteString("- " + mdText(f.String()) + "\n")
		}
		b.WriteString("\n</details>\n\n")
	}
}

// prCounts says how many open findings are new and how many were fixed, ""
// outside pull-request mode.
func prCounts(open, fixed []*finding.Finding) string {
	news, pr := 0, len(fixed) > 0
	for _, f := range open {
		pr = pr || f.Status != ""
		if f.Status == finding.StatusNew {
			news++
		}
	}
	if !pr {
		return ""
	}
	return fmt.Sprintf("%d new, %d fixed", news, len(fixed))
}

func (m Markdown) findingRow(g annotation) string {
	f := g.Finding
	level := map[finding.Level]string{finding.Error: "❌ error", finding.Warning: "⚠️ warning", finding.Note: "ℹ️ note"}[f.Level]
	if f.Status == finding.StatusNew {
		level += " · new"
	}
	msg := mdText(f.Message)
	if !f.Object.IsZero() {
		msg += "<br><sub>" + mdText(alikeObjects(g))
		if len(f.Path) > 0 {
			msg += " " + codeSpan(f.Path.String())
		}
		msg += "</sub>"
	}
	loc := m.locationLink(f.Location)
	if f.AtBase() {
		loc = linkLocation(m.BaseBlobURL, f.Location) + " (base)"
	}
	return fmt.Sprintf("| %s | %s | %s | %s |\n", level, loc, codeSpan(f.RuleID), msg)
}

// maxAlikeTargets is how many render targets a row of findings alike names
// before it counts the rest: a base shared by 200 overlays is one row, not a
// paragraph.
const maxAlikeTargets = 5

// alikeObjects names the object of a finding and the render targets of
// the findings alike: "Deployment shop/web [overlays/dev, overlays/prod]".
// Alike findings about different objects are named one after another.
func alikeObjects(g annotation) string {
	all := append([]*finding.Finding{g.Finding}, g.alike...)
	var names []string
	targets := map[string][]string{}
	for _, f := range all {
		id := f.Object
		id.Target = ""
		key := id.String()
		if _, seen := targets[key]; !seen {
			names = append(names, key)
		}
		if t := f.Object.Target; t != "" && !slices.Contains(targets[key], t) {
			targets[key] = append(targets[key], t)
		} else if targets[key] == nil {
			targets[key] = []string{}
		}
	}
	for i, n := range names {
		if ts := targets[n]; len(ts) > maxAlikeTargets {
			names[i] = fmt.Sprintf("%s [%s and %d more]", n, strings.Join(ts[:maxAlikeTargets], ", "), len(ts)-maxAlikeTargets)
		} else if len(ts) > 0 {
			names[i] = n + " [" + strings.Join(ts, ", ") + "]"
		}
	}
	return strings.Join(names, "; ")
}

// diffSection adds the drift diffs, each in a collapsed block; a diff too
// long for the room left is cut (and says so). It returns how many diffs
// were added.
func (m Markdown) diffSection(doc *budgetDoc, diffs []*finding.Finding) int {
	header := "#### Diffs\n\n"
	added := 0
	for _, f := range diffs {
		summary := codeSpanHTML(f.RuleID)
		if !f.Object.IsZero() {
			summary += " · " + htmlText(f.Object.String())
		}
		if loc := manifest.FormatLocation(f.Location); loc != "" {
			summary += " · " + codeSpanHTML(loc)
		}
		open := "<details><summary>" + summary + "</summary>\n\n"
		body := strings.TrimRight(f.Diff, "\n")
		fence := codeFence(body)
		closeBlock := "\n" + fence + "\n\n</details>\n\n"
		prefix := open + fence + "diff\n"
		if added == 0 {
			prefix = header + prefix
		}
		block := prefix + body + closeBlock
		if doc.fits(block) {
			doc.force(block)
			added++
			continue
		}
		// Cut the diff to the room left, whole lines only.
		room := doc.room() - len(prefix) - len(closeBlock) - 40
		if room <= 0 {
			break
		}
		lines := strings.Split(body, "\n")
		var cut strings.Builder
		kept := 0
		for _, l := range lines {
			if cut.Len()+len(l)+1 > room {
				break
			}
			cut.WriteString(l)
			cut.WriteByte('\n')
			kept++
		}
		if kept == 0 {
			break
		}
		doc.force(prefix + cut.String() + fmt.Sprintf("… %d more lines", len(lines)-kept) + closeBlock)
		added++
		break
	}
	return added
}

// locationLink prints file:line, linked to the line on GitHub when BlobURL
// is set.
func (m Markdown) locationLink(l finding.Location) string {
	return linkLocation(m.BlobURL, l)
}

// linkLocation prints file:line, linked to blobURL + path + "#Lline" when
// blobURL is set.
func linkLocation(blobURL string, l finding.Location) string {
	text := manifest.FormatLocation(l)
	if text == "" {
		return "—"
	}
	if blobURL == "" {
		return codeSpan(text)
	}
	u := blobURL + fileURI(l.File)
	if l.Line > 0 {
		u += "#L" + strconv.Itoa(l.Line)
		if l.EndLine > l.Line {
			u += "-L" + strconv.Itoa(l.EndLine)
		}
	}
	return "[" + codeSpan(text) + "](" + u + ")"
}

// budgetDoc is a document with a size budget: parts are added only while
// they fit, keeping reserve bytes free for what must come last.
type budgetDoc struct {
	b       strings.Builder
	max     int
	reserve int
}

func (d *budgetDoc) String() string { return d.b.String() }

func (d *budgetDoc) room() int {
	if d.max <= 0 {
		return int(^uint(0) >> 1)
	}
	return d.max - d.reserve - d.b.Len()
}

func (d *budgetDoc) fits(s string) bool { return len(s) <= d.room() }

// force adds s whatever the budget (the head, the notes).
func (d *budgetDoc) force(s string) { d.b.WriteString(s) }

// section adds header, as many items as fit (in order) and footer; nothing
// when not even the first item fits. It returns the number of items added.
func (d *budgetDoc) section(header, footer string, items []string) int {
	if len(items) == 0 || !d.fits(header+items[0]+footer) {
		return 0
	}
	d.force(header)
	n := 0
	for _, it := range items {
		if !d.fits(it + footer) {
			break
		}
		d.force(it)
		n++
	}
	d.force(footer)
	return n
}

// The Markdown printers of repository text: internal/mdtext.
func mdText(s string) string       { return mdtext.Text(s) }
func htmlText(s string) string     { return mdtext.HTML(s) }
func codeSpan(s string) string     { return mdtext.Code(s) }
func codeFence(body string) string { return mdtext.Fence(body) }

// codeSpanHTML is inline code inside HTML (a <summary>).
func codeSpanHTML(s string) string { return "<code>" + htmlText(s) + "</code>" }

// maxCommentDiff bounds the diff quoted in one review comment.
const maxCommentDiff = 20000

// FindingComment is the Markdown of a review comment about one finding:
// level, rule and status, the message, the object and field, the rule's
// remediation and (cut to a size) the diff.
func FindingComment(f *finding.Finding) string { return FindingCommentWith(f, nil, "") }

// FindingCommentWith is FindingComment about f and the findings that read
// alike in other render targets (their objects are named after f's), with
// trusted Markdown (a suggested change) after the message and before the
// remediation.
func FindingCommentWith(f *finding.Finding, alike []*finding.Finding, extra string) string {
	var b strings.Builder
	level := map[finding.Level]string{finding.Error: "❌ **error**", finding.Warning: "⚠️ **warning**", finding.Note: "ℹ️ **note**"}[f.Level]
	b.WriteString(level + " · " + codeSpan(f.RuleID))
	if f.Title != "" {
		b.WriteString(" · " + mdText(f.Title))
	}
	if f.Status == finding.StatusNew {
		b.WriteString(" · new")
	}
	b.WriteString("\n\n")
	lines := strings.Split(strings.TrimSpace(f.Message), "\n")
	for i, l := range lines {
		lines[i] = mdText(l)
	}
	b.WriteString(truncateRunes(strings.Join(lines, "  \n"), 20000))
	b.WriteString("\n\n")
	if !f.Object.IsZero() {
		b.WriteString("<sub>" + mdText(alikeObjects(annotation{Finding: f, alike: alike})))
		if len(f.Path) > 0 {
			b.WriteString(" · " + codeSpan(f.Path.String()))
		}
		b.WriteString("</sub>\n\n")
	}
	if extra != "" {
		b.WriteString(extra + "\n\n")
	}
	if help := strings.TrimSpace(f.Help); help != "" {
		b.WriteString("<details><summary>How to fix</summary>\n\n")
		b.WriteString(helpMarkdown(f, truncateRunes(help, 10000)))
		b.WriteString("\n\n</details>\n\n")
	}
	if diff := strings.TrimRight(f.Diff, "\n"); diff != "" {
		if len(diff) > maxCommentDiff {
			cut := strings.LastIndexByte(diff[:maxCommentDiff], '\n')
			if cut < 0 {
				cut = maxCommentDiff
			}
			diff = diff[:cut] + "\n… (cut; the job summary has the whole diff)"
		}
		fence := codeFence(diff)
		b.WriteString(fence + "diff\n" + diff + "\n" + fence + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// helpMarkdown renders a finding's help: Markdown as written when it is
// plumb's own (TrustedHelp), else the safe subset of untrusted Markdown.
func helpMarkdown(f *finding.Finding, help string) string {
	if TrustedHelp(f.RuleID, f.Help) {
		return mdtext.Trusted(help)
	}
	return mdtext.Untrusted(help)
}

// TrustedHelp reports whether a help text is plumb's own Markdown: the
// remediation plumb's embedded catalog holds for that very check. Any
// other — a repository's catalog (checks.dirs, --checks), an inspection
// rule's description, a help that quotes the repository (a KubeVirt rule's
// name), a report read back from JSON whose text differs — is untrusted.
// Deciding by the text itself holds wherever the finding went: the cache,
// a shard's report merged, a fork's report posted.
func TrustedHelp(ruleID, help string) bool {
	id, ok := strings.CutPrefix(ruleID, "check/")
	if !ok {
		return false
	}
	r, ok := reference.CheckRemediation(id)
	return ok && r == help
}

// MarkdownText escapes text from outside (a repository, an API error) for
// a Markdown paragraph or table cell.
func MarkdownText(s string) string { return mdText(s) }

// MarkdownCode prints text from outside as inline code.
func MarkdownCode(s string) string { return codeSpan(s) }

// MarkdownFence returns a code fence longer than any backtick run in body.
func MarkdownFence(body string) string { return codeFence(body) }

// AlikeObjects names the objects of a finding and of the findings alike,
// "Deployment shop/web [overlays/dev, overlays/prod]".
func AlikeObjects(f *finding.Finding, alike []*finding.Finding) string {
	return alikeObjects(annotation{Finding: f, alike: alike})
}
