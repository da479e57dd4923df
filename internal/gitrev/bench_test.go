package gitrev_test

import (
	"context"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/gitrev"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// longHistory is one repository for every benchmark of a run: 5,000
// manifests, 2,000 commits of 10 changes each, packed.
var longHistory struct {
	once    sync.Once
	dir     string
	commits []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if longHistory.dir != "" {
		os.RemoveAll(longHistory.dir)
	}
	os.Exit(code)
}

func longHistoryRepo(b *testing.B) (string, []string) {
	longHistory.once.Do(func() {
		dir, err := os.MkdirTemp("", "plumb-gitrev-bench-")
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		longHistory.dir = dir
		longHistory.commits = gittest.LongHistory(b, dir, 5000, 2000, 10)
		b.Logf("repository: 5,000 files, 2,000 commits, built and packed in %v", time.Since(start).Round(time.Millisecond))
	})
	if longHistory.dir == "" {
		b.Skip("no repository")
	}
	return longHistory.dir, longHistory.commits
}

// BenchmarkReadBaseRevision reads every manifest of a revision half-way
// down a long packed history — what pull-request mode does with the base —
// as the loader does: walk the tree, stat and read each file.
func BenchmarkReadBaseRevision(b *testing.B) {
	dir, commits := longHistoryRepo(b)
	base := commits[len(commits)/2]
	b.ReportAllocs()
	b.ResetTimer()
	var files int
	cpu := bench.CPUTime()
	for b.Loop() {
		files = readRevision(b, dir, base)
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	// Wall time depends on what else runs on the machine; CPU time less so.
	b.ReportMetric((bench.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

func readRevision(b *testing.B, dir, ref string) int {
	tree, err := gitrev.Open(context.Background(), dir, ref, gitrev.Options{MaxFileBytes: 10 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer tree.Close()
	n := 0
	err = fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, err := d.Info(); err != nil {
			return err
		}
		if _, err := tree.ReadFile(p); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}
