package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// Determinism (issue 11, item 5): the same inputs give byte-identical JSON,
// SARIF, text and Markdown reports, run after run and whatever the number
// of threads the engines spread their work over (GOMAXPROCS 1, 2 and 8,
// set per process), on the demo with every engine — kustomize targets,
// inspection rules, the checks catalog, KubeVirt rules, the reference — and
// in pull-request mode.

// demoRepo copies the demo and its reference into a git repository whose
// base commit is the demo as it is, and whose working tree (the pull
// request) changes a kustomize patch, a plain manifest and a VM.
func demoRepo(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	r := gittest.New(t)
	for _, dir := range []string{"fixtures/demo", "fixtures/reference"} {
		copyTree(t, filepath.Join("..", "..", dir), filepath.Join(r.Dir, dir))
	}
	copyTree(t, "testdata/rules", filepath.Join(r.Dir, "rules"))
	base := r.Commit("base")
	edit := func(file, old, new string) {
		p := filepath.Join(r.Dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s lacks %q", file, old)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("fixtures/demo/cart/overlays/prod/scale.yaml", "replicas: 3", "replicas: 1")
	edit("fixtures/demo/web/deployment.yaml", "nginx:latest", "nginx:1.27.3")
	edit("fixtures/demo/desktops/windows11.yaml", "cores: 2", "cores: 1")
	return r, base
}

// copyTree copies a directory.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReportsAreByteIdenticalAcrossRunsAndThreads(t *testing.T) {
	r, base := demoRepo(t)
	formats := []string{"json", "sarif", "text", "markdown"}
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"single revision", nil},
		{"pull-request mode", []string{"--base-ref", base}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var first map[string][]byte
			firstRun := ""
			for _, procs := range []string{"1", "2", "8"} {
				for run := 1; run <= 2; run++ {
					out := t.TempDir()
					args := []string{"check", "--root", ".", "fixtures/demo", "--reference", "fixtures/reference",
						"--rules", "rules/site.yaml", "--reproducible"}
					for _, f := range formats {
						args = append(args, "--format", f+"="+filepath.Join(out, "report."+f))
					}
					p := runBinary(t, procOptions{dir: r.Dir, env: []string{"GOMAXPROCS=" + procs}}, append(args, mode.args...)...)
					if p.code != 1 {
						t.Fatalf("GOMAXPROCS=%s: exit %d, want 1 (the demo has errors)\n%s", procs, p.code, p.stderr)
					}
					got := map[string][]byte{}
					for _, f := range formats {
						b, err := os.ReadFile(filepath.Join(out, "report."+f))
						if err != nil {
							t.Fatal(err)
						}
						got[f] = b
					}
					this := fmt.Sprintf("GOMAXPROCS=%s run %d", procs, run)
					if first == nil {
						first, firstRun = got, this
						continue
					}
					for _, f := range formats {
						if !bytes.Equal(got[f], first[f]) {
							t.Errorf("%s: the %s report differs from %s's:\n%s", this, f, firstRun, firstDifference(first[f], got[f]))
						}
					}
				}
			}
			// The reports hold what the test is about: every engine, and the
			// pull request's changes.
			report := string(first["json"])
			for _, want := range []string{`"rule_id": "compare/drift"`, `"rule_id": "kubevirt/`, `"rule_id": "check/`,
				`"pin-replicas"`, `"name": "fixtures/demo/cart/overlays/prod"`} {
				if !strings.Contains(report, want) {
					t.Errorf("the JSON report lacks %s", want)
				}
			}
			if mode.args != nil && !strings.Contains(report, `"status": "fixed"`) {
				t.Error("pull-request mode: no finding is fixed")
			}
		})
	}
}

// firstDifference shows where two reports first differ.
func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return "one is a prefix of the other"
}
