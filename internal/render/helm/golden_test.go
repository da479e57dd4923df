package helm

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// goldenCase is one line of testdata/golden/cases.txt.
type goldenCase struct {
	name, root, chart string
	values            []string
}

func goldenCases(t *testing.T) []goldenCase {
	f, err := os.Open("testdata/golden/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		c := goldenCase{name: fields[0], root: fields[1], chart: fields[2]}
		if fields[3] != "-" {
			c.values = strings.Split(fields[3], ",")
		}
		out = append(out, c)
	}
	return out
}

// corpusDir is ../shared/corpus/realworld from the module root, or "" when
// it is absent.
func corpusDir() string {
	dir, _ := filepath.Abs("../../../../shared/corpus/realworld")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// TestGoldenHelmTemplate renders every case and compares the objects, as
// a set of parsed documents, with what `helm template` printed (gen.sh).
func TestGoldenHelmTemplate(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			base := "testdata/repo"
			if c.root == "corpus" {
				if base = corpusDir(); base == "" {
					t.Skip("../shared/corpus is absent")
				}
			}
			fsys := os.DirFS(base)
			ch, err := LoadChart(fsys, c.chart, manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Target: c.chart, KubeVersion: "v1.37.0", IncludeCRDs: true}
			for _, v := range c.values {
				req.Sources = append(req.Sources, Source{File: v})
			}
			out := NewRenderer(fsys, manifest.Limits{}).Render(ch, req)
			for _, p := range out.Problems {
				t.Errorf("problem: %s", p.Error())
			}
			var got []string
			for _, o := range out.Objects {
				got = append(got, canonical(t, o.Content))
			}
			want := goldenDocs(t, "testdata/golden/"+c.name+".yaml")
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%d objects, helm template printed %d", len(got), len(want))
				for _, g := range got {
					if !slices.Contains(want, g) {
						t.Errorf("only plumb: %s", g)
					}
				}
				for _, w := range want {
					if !slices.Contains(got, w) {
						t.Errorf("only helm:  %s", w)
					}
				}
			}
		})
	}
}

// randomSuffix is the suffix randAlphaNum gives test hook names (podinfo):
// plumb seeds it per target, helm does not.
var randomSuffix = regexp.MustCompile(`-[a-z0-9]{5}"`)

func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(back)
	s := string(b)
	if strings.Contains(s, `"helm.sh/hook":"test`) {
		s = randomSuffix.ReplaceAllString(s, `-XXXXX"`)
	}
	return s
}

func goldenDocs(t *testing.T, file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		var v any
		if err := sigsyaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if v == nil {
			continue
		}
		out = append(out, canonical(t, v))
	}
	slices.Sort(out)
	return out
}
