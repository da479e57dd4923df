package kubevirt

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/golden"
	"github.com/plumb-ci/plumb/internal/render"
)

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

func TestGoldenReport(t *testing.T) {
	out := run(t, nil, loadRepo(t)...)
	sec, err := json.MarshalIndent(out.Section, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/section.json", append(sec, '\n'))
	golden.Assert(t, "testdata/findings.txt", []byte(short(out.Findings)))
	// Same input, same bytes.
	again, _ := json.MarshalIndent(run(t, &Analyzer{Workers: 1}, loadRepo(t)...).Section, "", "  ")
	if !bytes.Equal(append(again, '\n'), append(sec, '\n')) {
		t.Error("the section depends on the number of workers")
	}
}
