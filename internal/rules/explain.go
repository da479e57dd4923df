package rules

import (
	"bufio"
	"fmt"
	"io"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// WriteExplanation prints what --explain recorded, in the manner of Ironic's
// offline rule tester: per document and object, each rule as [MATCH],
// [SKIP], [ERROR] or [STOPPED], each condition's resolved arguments and
// result (per loop item), and each action's resolved arguments. Sensitive
// rules show only their outcome; Secret values are redacted.
func (r *Run) WriteExplanation(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if !r.e.opts.Explain {
		fmt.Fprintln(bw, "(no explanation recorded)")
		return bw.Flush()
	}
	for _, p := range Phases {
		fmt.Fprintf(bw, "%s phase: %d rule(s)\n", p, len(r.e.phases[p]))
	}
	write := func(header string, s *subject) {
		if len(s.explain) == 0 {
			return
		}
		fmt.Fprintf(bw, "\n%s\n", r.redactText(header))
		for _, l := range s.explain {
			fmt.Fprintf(bw, "  %s\n", r.redactText(l))
		}
	}
	for _, s := range r.docOrder {
		write(fmt.Sprintf("document %d of %s (%s)", s.doc.Index+1, s.doc.File, manifest.FormatLocation(s.doc.Start())), s)
	}
	for _, s := range r.objOrder {
		write(fmt.Sprintf("%s (%s, scope %q)", s.id, manifest.FormatLocation(s.locate(nil)), s.scope), s)
	}
	return bw.Flush()
}
