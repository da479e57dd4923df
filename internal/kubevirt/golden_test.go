package kubevirt

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// loadRepo reads testdata/repo as the pipeline would: one target per
// directory, paths relative to the repository.
func loadRepo(t *testing.T) []*render.Target {
	t.Helper()
	var targets []*render.Target
	for _, dir := range []string{"templates", "vms"} {
		entries, err := os.ReadDir(filepath.Join("testdata/repo", dir))
		if err != nil {
			t.Fatal(err)
		}
		tg := &render.Target{Name: dir, Kind: render.KindPlain}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("testdata/repo", dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			tg.Objects = append(tg.Objects, parseObjects(t, dir+"/"+e.Name(), string(data), dir)...)
		}
		targets = append(targets, tg)
	}
	return targets
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking):\n%s", name, got)
	}
}

func TestGoldenReport(t *testing.T) {
	out := run(t, nil, loadRepo(t)...)
	sec, err := json.MarshalIndent(out.Section, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "section.json", append(sec, '\n'))
	golden(t, "findings.txt", []byte(short(out.Findings)))
	// Same input, same bytes.
	again, _ := json.MarshalIndent(run(t, &Analyzer{Workers: 1}, loadRepo(t)...).Section, "", "  ")
	if !bytes.Equal(append(again, '\n'), append(sec, '\n')) {
		t.Error("the section depends on the number of workers")
	}
}
