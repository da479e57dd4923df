package report

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// ruleDigest counts the printed findings of each rule and keeps the first
// location of each, for the digest a large text report ends with.
type ruleDigest struct {
	rules map[string]*digestEntry
}

type digestEntry struct {
	rule  string
	title string
	level finding.Level
	count int
	first finding.Location
}

func (d *ruleDigest) add(f *finding.Finding) {
	if d.rules == nil {
		d.rules = map[string]*digestEntry{}
	}
	e := d.rules[f.RuleID]
	if e == nil {
		e = &digestEntry{rule: f.RuleID, title: f.Title, level: f.Level, first: f.Location}
		d.rules[f.RuleID] = e
	}
	e.count++
	if f.Level < e.level {
		e.level = f.Level
	}
}

// write prints one line per rule, the most frequent first: its count, its
// most severe level and where it first occurs.
func (d *ruleDigest) write(bw *bufio.Writer, paint func(code, s string) string) {
	entries := make([]*digestEntry, 0, len(d.rules))
	width := 0
	for _, e := range d.rules {
		entries = append(entries, e)
		width = max(width, len(e.rule))
	}
	slices.SortFunc(entries, func(a, b *digestEntry) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return strings.Compare(a.rule, b.rule)
	})
	bw.WriteString(paint(ansiBold, "Findings by rule:") + "\n")
	for _, e := range entries {
		loc := lineStart(singleLine(manifest.FormatLocation(e.first)))
		title := ""
		if e.title != "" {
			title = singleLine(e.title) + ", "
		}
		fmt.Fprintf(bw, "  %-*s %6d  %-7s %sfirst at %s\n", width, e.rule, e.count, e.level, title, loc)
	}
	bw.WriteByte('\n')
}

// skippedLine says how many files were not read as objects, by reason:
// "15 files skipped: 12 kustomize patches, 3 not Kubernetes objects". ""
// when none were.
func skippedLine(skipped []manifest.Skipped, verbose bool) string {
	if len(skipped) == 0 {
		return ""
	}
	files := map[manifest.SkipReason]int{}
	for _, s := range skipped {
		files[s.Reason]++
	}
	var parts []string
	for _, reason := range manifest.SkipReasons {
		if n := files[reason]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, pluralReason(n, reason)))
		}
	}
	total := len(skipped)
	line := fmt.Sprintf("%s skipped: %s", plural(total, "file"), strings.Join(parts, ", "))
	if !verbose {
		line += " (--verbose lists them)"
	}
	return line
}

// pluralReason names n files of a reason: "12 kustomize patches", "3 not
// Kubernetes objects".
func pluralReason(n int, r manifest.SkipReason) string {
	if n == 1 {
		return string(r)
	}
	if p, ok := reasonPlurals[r]; ok {
		return p
	}
	return string(r) + "s"
}

var reasonPlurals = map[manifest.SkipReason]string{
	manifest.SkipKustomizePatch:  "kustomize patches",
	manifest.SkipKustomizeConfig: "kustomize configuration files",
	manifest.SkipToolConfig:      "tool configuration files",
	manifest.SkipComponentConfig: "component configuration files",
	manifest.SkipNotObject:       "not Kubernetes objects",
	manifest.SkipTemplateSource:  "template sources",
	manifest.SkipTestData:        "test data files",
	manifest.SkipVendored:        "vendored dependency files",
}

// writeSkipped lists every skipped file (--verbose).
func writeSkipped(bw *bufio.Writer, skipped []manifest.Skipped) {
	if len(skipped) == 0 {
		return
	}
	bw.WriteString("Skipped (not read as Kubernetes objects):\n")
	for _, s := range skipped {
		fmt.Fprintf(bw, "  %s (%s)\n", lineStart(singleLine(s.Path)), s.Reason)
	}
	bw.WriteByte('\n')
}
