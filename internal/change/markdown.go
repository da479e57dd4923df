package change

import (
	"fmt"
	"strings"

	"github.com/plumb-ci/plumb/internal/mdtext"
)

// maxNamed is how many objects (or images, replicas) a line names before
// it counts the rest.
const maxNamed = 5

// Markdown is the change summary as the summary comment shows it, first:
// one paragraph per group of targets the change affects alike, or one line
// when it changes nothing rendered. Everything from the repository
// (target and object names, images) is escaped.
func Markdown(sec *Section) string {
	var b strings.Builder
	b.WriteString("#### What this change does\n\n")
	if len(sec.Groups) == 0 {
		b.WriteString("This pull request changes nothing rendered: every target renders the same objects as the base.\n\n")
		return b.String()
	}
	fmt.Fprintf(&b, "Reaches %s: %s.\n\n", plural(len(sec.Reached), "target"), names(sec.Reached, mdtext.Code))
	for _, g := range sec.Groups {
		fmt.Fprintf(&b, "**%s**", names(g.Targets, mdtext.Text))
		switch g.Status {
		case TargetAdded:
			b.WriteString(" (new target)")
		case TargetRemoved:
			b.WriteString(" (target removed)")
		}
		fmt.Fprintf(&b, ": %s\n", counts(g))
		for _, l := range []struct {
			what  string
			items []string
		}{{"added", g.Added}, {"changed", g.Changed}, {"deleted", g.Deleted}, {"renamed", g.Renamed}} {
			if len(l.items) > 0 {
				fmt.Fprintf(&b, "- %s: %s\n", l.what, names(l.items, mdtext.Text))
			}
		}
		if len(g.Images) > 0 {
			items := make([]string, 0, len(g.Images))
			for _, ic := range g.Images {
				items = append(items, mdtext.Code(ic.From)+" → "+mdtext.Code(ic.To))
			}
			fmt.Fprintf(&b, "- images: %s\n", names(items, func(s string) string { return s }))
		}
		if len(g.Replicas) > 0 {
			items := make([]string, 0, len(g.Replicas))
			for _, r := range g.Replicas {
				items = append(items, mdtext.Text(r.Object)+" "+mdtext.Text(r.From)+" → "+mdtext.Text(r.To))
			}
			fmt.Fprintf(&b, "- replicas: %s\n", names(items, func(s string) string { return s }))
		}
		if g.CPU != "" || g.Memory != "" {
			var parts []string
			if g.CPU != "" {
				parts = append(parts, "CPU "+mdtext.Code(g.CPU))
			}
			if g.Memory != "" {
				parts = append(parts, "memory "+mdtext.Code(g.Memory))
			}
			b.WriteString("- requested (requests × replicas): " + strings.Join(parts, ", ") + "\n")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func counts(g TargetSummary) string {
	parts := []string{}
	for _, c := range []struct {
		n    int
		what string
	}{{len(g.Added), "added"}, {len(g.Changed), "changed"}, {len(g.Deleted), "deleted"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}

// names lists up to maxNamed items, then counts the rest.
func names(items []string, esc func(string) string) string {
	out := make([]string, 0, min(len(items), maxNamed)+1)
	for _, s := range items[:min(len(items), maxNamed)] {
		out = append(out, esc(s))
	}
	if len(items) > maxNamed {
		out = append(out, fmt.Sprintf("and %d more", len(items)-maxNamed))
	}
	return strings.Join(out, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
