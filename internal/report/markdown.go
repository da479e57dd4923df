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
	// Backlog, in pull-request mode, is trusted Markdown saying where the
	// findings already on the base are listed, e.g. "in the [job
	// summary](…)". When set they are counted in the title and are not
	// rows here: the document is about what the change does. Empty: they
	// are rows after the new ones.
	Backlog string
	// Base names, in pull-request mode, what the change is compared with
	// (the pull request's base branch, "main"; repository text, printed as
	// code). Empty: the base-ref the report records.
	Base string
	// SincePush, in pull-request mode, is a trusted Markdown line saying
	// what this push fixed and introduced compared with the previous head
	// (empty: the first run, or nothing to compare). It follows the
	// comparison with the base: the change comes first.
	SincePush string
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
	// A finding that reads alike in several render targets (a base shared
	// by overlays) is one problem: one row naming the targets, counted
	// once, as in the annotations and the review comments.
	groups, fixedGroups := groupAlike(open), groupAlike(fixed)
	t := tally(groups, fixedGroups)
	rows := groups
	if t.PR && m.Backlog != "" {
		// What the base already has is counted, not listed.
		rows = slices.DeleteFunc(slices.Clone(groups), func(g annotation) bool { return onBase(g.Finding) })
	}

	var head strings.Builder
	m.writeHead(&head, r, t, groups, fixedGroups, len(groupAlike(suppressed)))
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
	if len(rows) > 0 {
		lines := make([]string, 0, min(len(rows), maxRows))
		for _, g := range rows[:min(len(rows), maxRows)] {
			lines = append(lines, m.findingRow(g))
		}
		title := "Findings"
		if len(rows) < len(groups) && !slices.ContainsFunc(rows, func(g annotation) bool { return g.Status != finding.StatusNew }) {
			title = "New findings"
		}
		n := doc.section("#### "+title+"\n\n| | location | rule | message |\n| --- | --- | --- | --- |\n", "\n", lines)
		if n < len(rows) {
			left = append(left, fmt.Sprintf("%d of %s", len(rows)-n, plural(len(rows), strings.ToLower(strings.TrimSuffix(title, "s")))))
		}
	}

	var diffs []*finding.Finding
	for _, g := range rows {
		if g.Diff != "" {
			diffs = append(diffs, g.Finding)
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
		gs     []annotation
		reason bool
	}{
		{"Fixed by this change", fixedGroups, false},
		{"Suppressed", groupAlike(suppressed), true},
	} {
		if len(group.gs) == 0 {
			continue
		}
		header := fmt.Sprintf("#### %s (%d)\n\n<details><summary>%s</summary>\n\n| location | rule | %s |\n| --- | --- | --- |\n",
			group.title, len(group.gs), plural(len(group.gs), "finding"), map[bool]string{false: "message", true: "reason"}[group.reason])
		lines := make([]string, 0, len(group.gs))
		for _, g := range group.gs {
			lines = append(lines, m.listRow(g, group.reason))
		}
		n := doc.section(header, "\n</details>\n\n", lines)
		if n < len(lines) {
			left = append(left, fmt.Sprintf("%d of %d %s", len(lines)-n, len(lines), strings.ToLower(group.title)))
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

// listRow is a row of the fixed or suppressed findings: the location, the
// rule and the message (or the reason it is accepted), the targets of the
// findings alike named after the message.
func (m Markdown) listRow(g annotation, reason bool) string {
	f := g.Finding
	text := mdText(f.Message)
	if reason && f.Suppressed != nil {
		text = f.Suppressed.Reason
		if f.Suppressed.Until != "" {
			text += " (until " + f.Suppressed.Until + ")"
		}
		text = mdText(text)
	}
	if len(g.alike) > 0 {
		text += "<br><sub>" + mdText(alikeObjects(g)) + "</sub>"
	}
	loc := m.locationLink(f.Location)
	if f.Status == finding.StatusFixed {
		loc = linkLocation(m.BaseBlobURL, f.Location)
	}
	return fmt.Sprintf("| %s | %s | %s |\n", loc, codeSpan(f.RuleID), text)
}

func (m Markdown) writeHead(b *strings.Builder, r *Report, t Tally, open, fixed []annotation, suppressed int) {
	title := "no findings"
	switch {
	case t.PR:
		// In pull-request mode the title says what the change did, and the
		// backlog in one phrase.
		where := "listed below"
		if m.Backlog != "" {
			where = m.Backlog
		}
		title = prTitle(t, m.baseName(r), where)
	case t.Open.Total() > 0:
		title = t.Open.String()
	}
	fmt.Fprintf(b, "### plumb: %s\n\n", title)
	if m.Context != "" {
		b.WriteString(m.Context)
		b.WriteString("\n\n")
	}
	if t.PR {
		// A change that introduces and fixes nothing needs no table.
		if t.New.Total()+t.Fixed > 0 {
			writeChangeCounts(b, open, fixed, m.baseName(r))
		}
		if m.SincePush != "" {
			b.WriteString(m.SincePush)
			b.WriteString("\n\n")
		}
	} else if len(open) > 0 {
		writeLevelCounts(b, open)
	}

	s := r.Summarize()
	facts := []string{
		plural(len(r.Objects), "object") + " in " + plural(len(r.Targets), "target"),
	}
	if s.Files > 0 {
		facts = append(facts, plural(s.Files, "file")+" with findings")
	}
	if suppressed > 0 {
		facts = append(facts, strconv.Itoa(suppressed)+" suppressed")
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

// sourceCounts are the problems of one engine (a finding's source).
type sourceCounts struct {
	name string
	LevelCounts
	fixed, base int
}

// bySource counts problems by engine, engines sorted by name; count adds
// one problem to its engine's counts.
func bySource(gs []annotation, count func(*sourceCounts, annotation), into map[string]*sourceCounts) {
	for _, g := range gs {
		src := firstNonEmpty(g.Source, "other")
		if into[src] == nil {
			into[src] = &sourceCounts{name: src}
		}
		count(into[src], g)
	}
}

func sortedSources(m map[string]*sourceCounts) []*sourceCounts {
	out := make([]*sourceCounts, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *sourceCounts) int { return strings.Compare(a.name, b.name) })
	return out
}

// writeLevelCounts is the table of open problems by engine and level.
func writeLevelCounts(b *strings.Builder, open []annotation) {
	counts := map[string]*sourceCounts{}
	bySource(open, func(c *sourceCounts, g annotation) { c.Add(g.Level) }, counts)
	b.WriteString("| engine | errors | warnings | notes |\n| --- | ---: | ---: | ---: |\n")
	var total LevelCounts
	rows := sortedSources(counts)
	for _, c := range rows {
		total.Errors += c.Errors
		total.Warnings += c.Warnings
		total.Notes += c.Notes
		fmt.Fprintf(b, "| %s | %d | %d | %d |\n", codeSpan(c.name), c.Errors, c.Warnings, c.Notes)
	}
	if len(rows) > 1 {
		fmt.Fprintf(b, "| **total** | **%d** | **%d** | **%d** |\n", total.Errors, total.Warnings, total.Notes)
	}
	b.WriteByte('\n')
}

// writeChangeCounts is, in pull-request mode, the table of what the
// change does by engine: the new problems by level, the fixed ones, and
// those already on the base; its totals are the title's (an engine whose
// problems were not compared has no row).
func writeChangeCounts(b *strings.Builder, open, fixed []annotation, base string) {
	counts := map[string]*sourceCounts{}
	bySource(open, func(c *sourceCounts, g annotation) {
		switch g.Status {
		case finding.StatusUnchanged:
			c.base++
		case finding.StatusNew:
			c.Add(g.Level)
		}
	}, counts)
	bySource(fixed, func(c *sourceCounts, _ annotation) { c.fixed++ }, counts)
	fmt.Fprintf(b, "| engine | new errors | new warnings | new notes | fixed | already on %s |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", base)
	var total sourceCounts
	rows := sortedSources(counts)
	rows = slices.DeleteFunc(rows, func(c *sourceCounts) bool { return c.Total()+c.fixed+c.base == 0 })
	for _, c := range rows {
		total.Errors += c.Errors
		total.Warnings += c.Warnings
		total.Notes += c.Notes
		total.fixed += c.fixed
		total.base += c.base
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d |\n", codeSpan(c.name), c.Errors, c.Warnings, c.Notes, c.fixed, c.base)
	}
	if len(rows) > 1 {
		fmt.Fprintf(b, "| **total** | **%d** | **%d** | **%d** | **%d** | **%d** |\n", total.Errors, total.Warnings, total.Notes, total.fixed, total.base)
	}
	b.WriteByte('\n')
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
// the findings alike: "Deployment shop/web in 2 targets [overlays/dev,
// overlays/prod]".
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
		ts := targets[n]
		// One problem in several targets says so: it counts once.
		in := ""
		if len(ts) > 1 {
			in = fmt.Sprintf(" in %d targets", len(ts))
		}
		if len(ts) > maxAlikeTargets {
			names[i] = fmt.Sprintf("%s%s [%s and %d more]", n, in, strings.Join(ts[:maxAlikeTargets], ", "), len(ts)-maxAlikeTargets)
		} else if len(ts) > 0 {
			names[i] = n + in + " [" + strings.Join(ts, ", ") + "]"
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

// levelLabel is a finding's level as a comment shows it.
func levelLabel(l finding.Level) string {
	return map[finding.Level]string{finding.Error: "❌ **error**", finding.Warning: "⚠️ **warning**", finding.Note: "ℹ️ **note**"}[l]
}

// ruleLabel is the comment's name of a finding: its level, rule, title
// and whether it is new.
func ruleLabel(f *finding.Finding) string {
	s := levelLabel(f.Level) + " · " + codeSpan(f.RuleID)
	if f.Title != "" {
		s += " · " + mdText(f.Title)
	}
	if f.Status == finding.StatusNew {
		s += " · new"
	}
	return s
}

// objectsLine names the objects of a finding and its alike ones, and the
// field: "Deployment shop/web in 2 targets [dev, prod] · `spec.replicas`".
func objectsLine(f *finding.Finding, alike []*finding.Finding) string {
	if f.Object.IsZero() {
		return ""
	}
	s := mdText(alikeObjects(annotation{Finding: f, alike: alike}))
	if len(f.Path) > 0 {
		s += " · " + codeSpan(f.Path.String())
	}
	return s
}

// FindingCommentWith is FindingComment about f and the findings that read
// alike in other render targets (their objects are named after f's), with
// trusted Markdown (a suggested change) after the message and before the
// remediation.
func FindingCommentWith(f *finding.Finding, alike []*finding.Finding, extra string) string {
	var b strings.Builder
	b.WriteString(ruleLabel(f))
	b.WriteString("\n\n")
	lines := strings.Split(strings.TrimSpace(f.Message), "\n")
	for i, l := range lines {
		lines[i] = mdText(l)
	}
	b.WriteString(truncateRunes(strings.Join(lines, "  \n"), 20000))
	b.WriteString("\n\n")
	if obj := objectsLine(f, alike); obj != "" {
		b.WriteString("<sub>" + obj + "</sub>\n\n")
	}
	if extra != "" {
		b.WriteString(extra + "\n\n")
	}
	if help := strings.TrimSpace(f.Help); help != "" {
		b.WriteString("<details><summary>How to fix</summary>\n\n")
		b.WriteString(helpMarkdown(f, truncateRunes(help, 10000)))
		b.WriteString("\n\n</details>\n\n")
	}
	writeCommentDiff(&b, f.Diff)
	return strings.TrimRight(b.String(), "\n")
}

// writeCommentDiff quotes a finding's diff, cut to maxCommentDiff.
func writeCommentDiff(b *strings.Builder, diff string) {
	diff = strings.TrimRight(diff, "\n")
	if diff == "" {
		return
	}
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

// CommentItem is one problem of a review comment about several: a
// finding, the findings alike in other render targets, and trusted
// Markdown said after it ("fixed by the suggested change below").
type CommentItem struct {
	Finding *finding.Finding
	Alike   []*finding.Finding
	Note    string
}

// Bounds of a comment about several problems, within GitHub's 65,536
// characters with room for the markers: one problem's message, the
// comment once the remediations are in, and once the diffs are.
const (
	maxItemMessage = 500
	maxSeveralHelp = 40000
	maxSeveralBody = 60000
)

// FindingsComment is the Markdown of one review comment about several
// problems on the same lines: a short checklist of what is wrong (most
// important first), the objects once when they are the same for all,
// trusted Markdown (the joint suggested change) once, then "How to fix"
// per rule, folded, and the diffs.
func FindingsComment(items []CommentItem, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%d problems here:**\n\n", len(items))
	shared := objectsLine(items[0].Finding, items[0].Alike)
	for _, it := range items[1:] {
		if objectsLine(it.Finding, it.Alike) != shared {
			shared = ""
			break
		}
	}
	for _, it := range items {
		f := it.Finding
		msg := truncateRunes(strings.Join(strings.Fields(f.Message), " "), maxItemMessage)
		b.WriteString("- " + ruleLabel(f) + " — " + mdText(msg))
		if obj := objectsLine(f, it.Alike); shared == "" && obj != "" {
			b.WriteString(" <sub>" + obj + "</sub>")
		}
		if it.Note != "" {
			b.WriteString(" — " + it.Note)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	if shared != "" {
		b.WriteString("<sub>" + shared + "</sub>\n\n")
	}
	if extra != "" {
		b.WriteString(extra + "\n\n")
	}
	// GitHub refuses a comment over 65,536 characters: the remediations
	// and the diffs go in while the comment has room, the rest is pointed
	// at.
	seen := map[string]bool{}
	left := false
	for _, it := range items {
		f := it.Finding
		help := strings.TrimSpace(f.Help)
		if help == "" || seen[f.RuleID] {
			continue
		}
		seen[f.RuleID] = true
		summary := "How to fix " + codeSpanHTML(f.RuleID)
		if f.Title != "" {
			summary += " · " + htmlText(f.Title)
		}
		block := "<details><summary>" + summary + "</summary>\n\n" + helpMarkdown(f, truncateRunes(help, 10000)) + "\n\n</details>\n\n"
		if b.Len()+len(block) > maxSeveralHelp {
			left = true
			continue
		}
		b.WriteString(block)
	}
	for _, it := range items {
		var d strings.Builder
		writeCommentDiff(&d, it.Finding.Diff)
		if b.Len()+d.Len() > maxSeveralBody {
			left = left || d.Len() > 0
			continue
		}
		b.WriteString(d.String())
	}
	if left {
		b.WriteString("_More in the job summary: this comment is kept within GitHub's size limit._\n")
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
