package change_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/change"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// The realworld corpus holds no git history, so each repository gets a
// synthesized one: the repository as copied, then commits of the edits a
// pull request most often makes — more replicas, a version bump (image
// tags, chart version and appVersion, values tags), new configuration
// values (generator literals, environment values). Each commit is checked
// against the one before it, as a pull request would be; none of these
// edits warrants a change finding. A last commit deletes a Service that
// a workload still addresses (microservices-demo's redis-cart), which
// must be found.

var (
	replicasLine = regexp.MustCompile(`(?m)^(\s*replicas(?:Count)?:\s*)([1-9][0-9]*)\s*$`)
	versionTag   = regexp.MustCompile(`(?m)^(\s*(?:-\s+)?(?:image|tag|version|appVersion|newTag):\s*["']?[^\s"':]*:?v?)([0-9]+)\.([0-9]+)\.([0-9]+)(["']?\s*)$`)
	literalLine  = regexp.MustCompile(`(?m)^(\s*-\s+[A-Za-z_][A-Za-z0-9_.-]*=)([^\s"']+)\s*$`)
	envValue     = regexp.MustCompile(`(?m)^(\s+value:\s*")([A-Za-z][A-Za-z0-9_-]*)("\s*)$`)
)

type edit struct {
	name string
	re   *regexp.Regexp
	fn   func(m []string) string
}

var edits = []edit{
	{"replicas", replicasLine, func(m []string) string {
		n, _ := strconv.Atoi(m[2])
		return m[1] + strconv.Itoa(n+1)
	}},
	{"version bump", versionTag, func(m []string) string {
		patch, _ := strconv.Atoi(m[4])
		return m[1] + m[2] + "." + m[3] + "." + strconv.Itoa(patch+1) + m[5]
	}},
	{"configuration values", literalLine, func(m []string) string { return m[1] + m[2] + "-2" }},
	{"environment values", envValue, func(m []string) string { return m[1] + m[2] + "-2" + m[3] }},
}

// applyEdit rewrites every YAML file of dir with e and returns how many
// lines changed.
func applyEdit(t *testing.T, dir string, e edit) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := e.re.ReplaceAllStringFunc(string(data), func(s string) string {
			n++
			return e.fn(e.re.FindStringSubmatch(s))
		})
		if out == string(data) {
			return nil
		}
		return os.WriteFile(p, []byte(out), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSynthesizedHistoriesOfTheCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every corpus repository five times")
	}
	corpus := testcorpus.Dir(t, "realworld")
	for _, repo := range []string{"podinfo", "microservices-demo", "examples", "library", "flux2-kustomize-helm-example"} {
		t.Run(repo, func(t *testing.T) {
			r := gittest.New(t)
			if err := os.CopyFS(r.Dir, os.DirFS(filepath.Join(corpus, repo))); err != nil {
				t.Fatal(err)
			}
			prev := r.Commit("the repository")
			for _, e := range edits {
				lines := applyEdit(t, r.Dir, e)
				if lines == 0 {
					continue
				}
				commit := r.Commit(e.name)
				rep := checkPR(t, r.Dir, prev)
				sec, _ := change.FromSection(rep.Sections[change.SectionName])
				objects := 0
				for _, g := range sec.Groups {
					objects += (len(g.Added) + len(g.Changed) + len(g.Deleted)) * len(g.Targets)
				}
				fs := changeFindings(rep)
				t.Logf("%s: %s: %d lines edited, %d targets reached, %d objects differ, %d change findings", repo, e.name, lines, len(sec.Reached), objects, len(fs))
				if len(fs) > 0 {
					t.Errorf("%s: no change finding is warranted:%s", e.name, list(fs))
				}
				prev = commit
			}
			if repo == "microservices-demo" {
				deleteRedisService(t, r.Dir)
				r.Commit("delete the redis-cart Service")
				fs := changeFindings(checkPR(t, r.Dir, prev))
				if len(fs) != 1 || fs[0].RuleID != change.RuleDangling || !strings.Contains(fs[0].Message, "Service redis-cart") ||
					!strings.Contains(fs[0].Message, "env REDIS_ADDR") {
					t.Errorf("deleting redis-cart: want one %s finding naming the env var, got:%s", change.RuleDangling, list(fs))
				}
			}
		})
	}
}

// deleteRedisService removes the redis-cart Service document of the
// plain manifests.
func deleteRedisService(t *testing.T, dir string) {
	p := filepath.Join(dir, "kubernetes-manifests", "cartservice.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	var kept []string
	for _, d := range docs {
		if strings.Contains(d, "kind: Service\n") && strings.Contains(d, "name: redis-cart\n") {
			continue
		}
		kept = append(kept, d)
	}
	if len(kept) != len(docs)-1 {
		t.Fatalf("the redis-cart Service is not one document of %s", p)
	}
	if err := os.WriteFile(p, []byte(strings.Join(kept, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
