package checks

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

func defaultCatalog(t testing.TB) *Catalog {
	t.Helper()
	cat := Load(DefaultSource())
	if len(cat.Diagnostics) > 0 {
		for _, d := range cat.Diagnostics {
			t.Error(d)
		}
		t.FailNow()
	}
	return cat
}

// fixtureEnv is testdata/catalog/<ID>/env.yaml: the run's env and the env
// of each render target.
type fixtureEnv struct {
	env     map[string]any
	targets map[string]map[string]any
}

func readFixtureEnv(t *testing.T, dir string) fixtureEnv {
	t.Helper()
	fe := fixtureEnv{}
	data, err := os.ReadFile(filepath.Join(dir, "env.yaml"))
	if os.IsNotExist(err) {
		return fe
	}
	if err != nil {
		t.Fatal(err)
	}
	docs, problems := manifest.Parse("env.yaml", data, manifest.Limits{})
	if len(problems) > 0 || len(docs) != 1 {
		t.Fatalf("env.yaml: %v", problems)
	}
	m := docs[0].Value.(map[string]any)
	fe.env, _ = m["env"].(map[string]any)
	if ts, ok := m["targets"].(map[string]any); ok {
		fe.targets = map[string]map[string]any{}
		for k, v := range ts {
			vm, _ := v.(map[string]any)
			fe.targets[k] = vm
		}
	}
	return fe
}

// loadFixture renders a fixture directory: each subdirectory is a render
// target, named by its path inside the fixture.
func loadFixture(t *testing.T, dir string) []*render.Target {
	t.Helper()
	fsys := os.DirFS(dir)
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	for _, p := range set.Problems {
		t.Fatalf("%s: %v", dir, p)
	}
	return render.Render(context.Background(), fsys, set, render.Options{}).Targets
}

// markedLines lists file:line of every line marked "# fail" in a fixture.
func markedLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if strings.Contains(sc.Text(), "# fail") {
				out = append(out, fmt.Sprintf("%s:%d", p, n))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// runCheck runs one check over a fixture.
func runCheck(t *testing.T, c *Check, dir string, fe fixtureEnv) (*Result, []finding.Finding) {
	t.Helper()
	in := &analyzer.Input{Targets: loadFixture(t, dir), Env: fe.env, TargetEnv: fe.targets}
	out, err := NewAnalyzer([]*Check{c}, nil).Analyze(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out.Section.(*Result), out.Findings
}

func executedTargets(cr *CheckResult) int {
	n := 0
	for a := range cr.AgentsCheckResults.All() {
		if a.Status == StatusExecuted {
			n++
		}
	}
	return n
}

// TestDefaultCatalogFixtures runs each default check on its passing and its
// failing fixture (testdata/catalog/<ID>/{pass,fail}). The passing fixture
// must be evaluated (not skipped) and pass with no finding; the failing one
// must fail, with findings exactly on the lines marked "# fail".
func TestDefaultCatalogFixtures(t *testing.T) {
	cat := defaultCatalog(t)
	if n := len(cat.Checks); n < 30 {
		t.Errorf("the default catalog has %d checks, want at least 30", n)
	}
	for _, c := range cat.Checks {
		t.Run(c.ID, func(t *testing.T) {
			dir := filepath.Join("testdata/catalog", c.ID)
			fe := readFixtureEnv(t, dir)
			for _, kind := range []string{"pass", "fail"} {
				sub := filepath.Join(dir, kind)
				if _, err := os.Stat(sub); err != nil {
					t.Fatalf("no %s fixture: %v", kind, err)
				}
				res, findings := runCheck(t, c, sub, fe)
				var cr *CheckResult
				for i := range res.CheckResults {
					if res.CheckResults[i].CheckID == c.ID {
						cr = &res.CheckResults[i]
					}
				}
				if cr == nil || executedTargets(cr) == 0 {
					t.Fatalf("%s: the check evaluated no target", kind)
				}
				var got []string
				for _, f := range findings {
					if f.RuleID != c.RuleID() {
						t.Errorf("%s: finding of another rule: %v", kind, f)
					}
					if f.Help != c.Remediation || f.Message == "" {
						t.Errorf("%s: finding without help or message: %+v", kind, f)
					}
					got = append(got, fmt.Sprintf("%s:%d", f.Location.File, f.Location.Line))
				}
				slices.Sort(got)
				got = slices.Compact(got)
				switch kind {
				case "pass":
					if cr.Result != Passing || len(findings) > 0 {
						t.Errorf("pass fixture: result %s, findings:\n%s", cr.Result, findingList(findings))
					}
				case "fail":
					if cr.Result == Passing {
						t.Errorf("fail fixture passes")
					}
					if want := markedLines(t, sub); !slices.Equal(got, want) {
						t.Errorf("fail fixture: findings at %v, marked lines %v\n%s", got, want, findingList(findings))
					}
				}
			}
		})
	}
}

func findingList(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s\n", f.String())
	}
	return b.String()
}

// TestDefaultCatalogExercisesTheFormat checks that the default catalog,
// taken together, uses every feature of the format.
func TestDefaultCatalogExercisesTheFormat(t *testing.T) {
	cat := defaultCatalog(t)
	has := map[string]bool{}
	gatherersUsed := map[string]bool{}
	for _, c := range cat.Checks {
		has["severity "+string(c.Severity)] = true
		has["target_type "+string(c.TargetType)] = true
		if c.When != nil {
			has["when"] = true
		}
		if c.Exclude != nil {
			has["exclude"] = true
		}
		if c.CustomizationDisabled {
			has["check customization_disabled"] = true
		}
		if _, ok := c.Metadata["kind"].([]any); ok {
			has["metadata list"] = true
		}
		if c.Customizable() {
			has["customizable value"] = true
		}
		for _, f := range c.Facts {
			d, _ := resolveGatherer(f.Gatherer)
			gatherersUsed[fmt.Sprintf("%s@v%d", d.name, d.version)] = true
		}
		for _, v := range c.Values {
			if len(v.Conditions) > 0 {
				has["value conditions"] = true
			}
			if v.CustomizationDisabled {
				has["value customization_disabled"] = true
			}
			if _, ok := v.Default.([]any); ok {
				has["list value"] = true
			}
		}
		for _, e := range c.Expectations {
			has[string(e.Type)] = true
			if e.WarningMessage != nil {
				has["warning_message"] = true
			}
			if e.FailureMessage.Interpolates() {
				has["interpolated message"] = true
			}
			if e.Type == ExpectSame && e.FailureMessage != nil {
				has["expect_same message"] = true
			}
		}
	}
	for _, f := range []string{"severity critical", "severity warning", "target_type object", "target_type group", "when", "exclude",
		"check customization_disabled", "value customization_disabled", "metadata list", "customizable value", "value conditions",
		"list value", "expect", "expect_same", "expect_enum", "warning_message", "interpolated message", "expect_same message"} {
		if !has[f] {
			t.Errorf("no default check uses %s", f)
		}
	}
	for _, g := range GathererNames() {
		if !gatherersUsed[g] {
			t.Errorf("no default check uses gatherer %s", g)
		}
	}
	// And the CEL extension libraries the issue lists.
	var all strings.Builder
	for _, c := range cat.Checks {
		data, _ := fs.ReadFile(DefaultSource().FS, path.Join("checks", c.ID+".yaml"))
		all.Write(data)
	}
	for lib, marker := range map[string]string{
		"Strings": ".join(", "Lists": ".flatten()", "Sets": "sets.intersects(", "Math": "math.greatest(",
		"Bindings": "cel.bind(", "TwoVarComprehensions": ".all(i, request,", "Regex": "regex.replace(", "optional types": ".orValue(",
	} {
		if !strings.Contains(all.String(), marker) {
			t.Errorf("no default check uses the %s library (%s)", lib, marker)
		}
	}
}

// TestDefaultMessagesAreOneLine: a folded YAML message keeps the newlines
// around more-indented lines; findings must be single lines.
func TestDefaultMessagesAreOneLine(t *testing.T) {
	for _, c := range defaultCatalog(t).Checks {
		for _, e := range c.Expectations {
			for _, m := range []*Message{e.FailureMessage, e.WarningMessage} {
				if m == nil {
					continue
				}
				for _, p := range m.parts {
					if strings.Contains(p.lit, "\n") {
						t.Errorf("%s %s: message text has a line break: %q", c.ID, e.Name, p.lit)
					}
				}
			}
		}
	}
}
