package fix_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// knownFixRules are the findings whose fix a synthesized pull request
// makes: an image unpinned (the base's tag back), a port quoted (the
// number), a memory request raised above its limit (the limit).
var knownFixRules = []string{"check/C10001", "schema/wrong-type", "check/A10004"}

// A pull request synthesized on real repositories of the corpus: every
// pinned image set to latest, every containerPort quoted, every memory
// request written beside its limit raised to twice the limit. Each
// suggestion of the three kinds is applied; checked again, none of those
// findings is left and no finding is new.
func TestKnownFixesOnASynthesizedPullRequest(t *testing.T) {
	for _, repo := range []string{"podinfo", "microservices-demo"} {
		t.Run(repo, func(t *testing.T) {
			r := gittest.New(t)
			if err := os.CopyFS(r.Dir, os.DirFS(testcorpus.Dir(t, "realworld", repo))); err != nil {
				t.Fatal(err)
			}
			r.Git("add", "-A")
			base := r.Commit("base")
			mutated := mutateTree(t, r.Dir)
			r.Git("add", "-A")
			r.Commit("head")
			before := checkPR(t, r.Dir, base)
			counts := map[string]int{}
			var fixed []*finding.Finding
			var edits []finding.Edit
			for i := range before {
				f := &before[i]
				if !slices.Contains(knownFixRules, f.RuleID) || !report.IsOpen(f) || !f.Fixable() {
					continue
				}
				counts[f.RuleID]++
				fixed = append(fixed, f)
				for _, e := range f.Fix.Edits {
					if !slices.Contains(edits, e) { // a base's line shared by overlays
						edits = append(edits, e)
					}
				}
			}
			t.Logf("%s: mutated %v; suggestions %v, %d distinct edits", repo, mutated, counts, len(edits))
			if counts["check/C10001"] == 0 || counts["schema/wrong-type"] == 0 {
				t.Fatalf("want suggestions of images and ports, got %v", counts)
			}
			applyEdits(t, r.Dir, edits)
			r.Git("add", "-A")
			r.Commit("fixed")
			after := checkPR(t, r.Dir, base)
			assertFixed(t, repo, openOnly(before), openOnly(after), fixed)
		})
	}
}

var (
	pinnedImage = regexp.MustCompile(`^(\s*-?\s*image:\s*["']?[^\s"'#{}$@]+:)([A-Za-z0-9_][A-Za-z0-9_.-]*)(["']?\s*)$`)
	portNumber  = regexp.MustCompile(`^(\s*-?\s*containerPort:\s*)(\d+)(\s*)$`)
	blockKey    = regexp.MustCompile(`^(\s*)(resources|requests|limits):\s*$`)
	memoryLine  = regexp.MustCompile(`^(\s*)memory:\s*(["']?)(\d+)([A-Za-z]*)(["']?)\s*$`)
)

// mutateTree makes the synthesized change in the YAML files under dir and
// counts what it changed.
func mutateTree(t *testing.T, dir string) map[string]int {
	n := map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml"):
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || strings.Contains(string(data), "\r") {
			return err
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if m := pinnedImage.FindStringSubmatch(l); m != nil && m[2] != "latest" {
				lines[i] = m[1] + "latest" + m[3]
				n["images"]++
			} else if m := portNumber.FindStringSubmatch(l); m != nil {
				lines[i] = m[1] + `"` + m[2] + `"` + m[3]
				n["ports"]++
			}
		}
		n["requests"] += raiseRequests(lines)
		return os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// raiseRequests sets each memory request written as a block line of a
// resources mapping that also has a memory limit to twice the limit, and
// returns how many it set.
func raiseRequests(lines []string) int {
	n := 0
	for i, l := range lines {
		m := blockKey.FindStringSubmatch(l)
		if m == nil || m[2] != "resources" {
			continue
		}
		memory := map[string]int{} // line of requests.memory, limits.memory
		section := ""
		for j := i + 1; j < len(lines); j++ {
			ind := len(lines[j]) - len(strings.TrimLeft(lines[j], " "))
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if ind <= len(m[1]) {
				break
			}
			if k := blockKey.FindStringSubmatch(lines[j]); k != nil {
				section = k[2]
			} else if memoryLine.MatchString(lines[j]) && section != "" {
				memory[section] = j
			}
		}
		req, okReq := memory["requests"]
		lim, okLim := memory["limits"]
		if !okReq || !okLim {
			continue
		}
		r, l := memoryLine.FindStringSubmatch(lines[req]), memoryLine.FindStringSubmatch(lines[lim])
		v, _ := strconv.Atoi(l[3])
		lines[req] = r[1] + "memory: " + r[2] + strconv.Itoa(2*v) + l[4] + r[5]
		n++
	}
	return n
}

// applyEdits makes edits (each replacing the lines it says) in the files
// under dir, from the bottom of each file up; edits must not overlap.
func applyEdits(t *testing.T, dir string, edits []finding.Edit) {
	t.Helper()
	slices.SortFunc(edits, func(a, b finding.Edit) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return b.StartLine - a.StartLine
	})
	for i, e := range edits {
		if i > 0 && edits[i-1].File == e.File && edits[i-1].StartLine <= e.EndLine {
			t.Fatalf("edits overlap: %+v and %+v", edits[i-1], e)
		}
		p := filepath.Join(dir, filepath.FromSlash(e.File))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		if got := strings.Join(lines[e.StartLine-1:e.EndLine], ""); got != e.Old {
			t.Fatalf("%s:%d is %q, the edit says %q", e.File, e.StartLine, got, e.Old)
		}
		out := strings.Join(lines[:e.StartLine-1], "") + e.New + strings.Join(lines[e.EndLine:], "")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkPR runs plumb check on dir in pull-request mode against base, with
// the default catalog.
func checkPR(t *testing.T, dir, base string) []finding.Finding {
	t.Helper()
	fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fset)
	if err := fset.Parse([]string{"--base-ref", base}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve(nil, fl, dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Reproducible = true
	res, err := pipeline.Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res.Report.Findings
}

// openOnly drops the findings pull-request mode reports fixed.
func openOnly(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if report.IsOpen(&f) {
			out = append(out, f)
		}
	}
	return out
}
