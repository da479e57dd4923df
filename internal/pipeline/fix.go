package pipeline

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/diff"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/fix"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/redact"
	"github.com/plumb-ci/plumb/internal/report"
)

// FixOptions tune Fix.
type FixOptions struct {
	// Select keeps the findings of these rules: "D10001", "check/D10001"
	// or any rule id (empty: every rule).
	Select []string
	// DryRun computes the edits and writes nothing.
	DryRun bool
}

// FixResult is what Fix did.
type FixResult struct {
	// Made are the edits made (or, with DryRun, to make), in file order.
	Made []fix.Item
	// Diffs are the unified diffs of the files, by file.
	Diffs map[string]string
	// Unfixed are findings whose edit was made but which a check after it
	// still finds; NoEdit findings with a declared fix and no exact edit;
	// Deferred (DryRun) those whose edits clash with the ones shown and
	// would be computed afresh after them.
	Unfixed, NoEdit, Deferred []finding.Finding
	// Errors are engine failures of the last check.
	Errors []error
}

// maxFixPasses bounds how often Fix checks and edits: edits that clash
// are made on the next pass, computed afresh.
const maxFixPasses = 4

// Fix applies the mechanical fixes that findings suggest to the working
// tree: it checks, makes the edits that can be made together, checks
// again (what is still found after its edit is reported unfixed), and
// repeats for edits that clashed, a few times at most.
func Fix(ctx context.Context, cfg *config.Config, opts FixOptions) (*FixResult, error) {
	out := &FixResult{Diffs: map[string]string{}}
	attempted := map[string]bool{}
	old, current := map[string]string{}, map[string]string{}
	for pass := 1; ; pass++ {
		res, err := Check(ctx, cfg)
		if err != nil {
			return nil, err
		}
		out.Errors = res.Errors
		open := report.ByImportance(res.Report.Findings, func(f *finding.Finding) bool {
			return report.IsOpen(f) && f.Fix != nil && selected(opts.Select, f.RuleID)
		})
		out.Unfixed, out.NoEdit = nil, nil
		var todo []*finding.Finding
		for _, f := range open {
			switch {
			case attempted[f.Fingerprint]:
				out.Unfixed = append(out.Unfixed, *f)
			case !f.Fixable():
				out.NoEdit = append(out.NoEdit, *f)
			default:
				todo = append(todo, f)
			}
		}
		batch := fix.Choose(todo)
		if len(batch.Items) == 0 {
			break
		}
		if pass > maxFixPasses {
			for _, f := range todo {
				out.Deferred = append(out.Deferred, *f)
			}
			break
		}
		texts, err := readFiles(cfg.Root, batch.Items)
		if err != nil {
			return nil, err
		}
		var edits []finding.Edit
		for _, it := range batch.Items {
			for _, e := range it.Edits {
				// An edit's text is plumb's output: the process's
				// tokens never reach it.
				e.New = redact.Process().String(e.New)
				edits = append(edits, e)
			}
			for _, f := range it.Findings {
				attempted[f.Fingerprint] = true
			}
		}
		next, err := fix.ApplyEdits(texts, edits)
		if err != nil {
			return nil, err
		}
		out.Made = append(out.Made, batch.Items...)
		for name, text := range texts {
			if _, ok := old[name]; !ok {
				old[name] = text
			}
		}
		for name, text := range next {
			current[name] = text
		}
		if opts.DryRun {
			for _, f := range batch.Deferred {
				out.Deferred = append(out.Deferred, *f)
			}
			break
		}
		if err := writeFiles(cfg.Root, next); err != nil {
			return nil, err
		}
	}
	for name, before := range old {
		if after := current[name]; after != before {
			// The diff's context lines are the file's: its
			// credentials are not printed.
			out.Diffs[name] = diff.Unified("a/"+name, "b/"+name, fix.MaskSecretLines(name, before), fix.MaskSecretLines(name, after))
		}
	}
	return out, nil
}

// selected reports whether rule is one of the selected ids.
func selected(ids []string, rule string) bool {
	if len(ids) == 0 {
		return true
	}
	return slices.ContainsFunc(ids, func(id string) bool {
		return id == rule || "check/"+id == rule
	})
}

// readFiles reads the files the items edit, inside the repository root
// and outside .git.
func readFiles(root string, items []fix.Item) (map[string]string, error) {
	fsys, r, err := manifest.OpenContent(root)
	if err != nil {
		return nil, fmt.Errorf("opening the repository root: %w", err)
	}
	defer r.Close()
	texts := map[string]string{}
	for _, it := range items {
		for _, e := range it.Edits {
			if _, ok := texts[e.File]; ok {
				continue
			}
			b, err := fs.ReadFile(fsys, e.File)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", e.File, err)
			}
			texts[e.File] = string(b)
		}
	}
	return texts, nil
}

// writeFiles writes the new texts, keeping each file's mode, inside the
// repository root and never into .git (a hook there would run at the next
// git command).
func writeFiles(root string, texts map[string]string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("opening the repository root: %w", err)
	}
	defer r.Close()
	content := manifest.ContentFS(r.FS())
	names := make([]string, 0, len(texts))
	for n := range texts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		st, err := fs.Stat(content, name)
		if err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		f, err := r.OpenFile(name, os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
		if err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		_, werr := strings.NewReader(texts[name]).WriteTo(f)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("writing %s: %w", name, werr)
		}
	}
	return nil
}
