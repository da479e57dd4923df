package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/report"
)

// shardRepo builds a repository with many targets and every kind of
// finding: per object, per file (a syntax error, a non-object), suppressed
// by annotation and by configuration, new, unchanged and fixed.
func shardRepo(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t)
	files := map[string]string{}
	for i := 0; i < 14; i++ {
		dir := fmt.Sprintf("apps/app%02d", i)
		image := "app:1.0"
		if i%3 == 0 {
			image = "app:latest"
		}
		files[dir+"/deploy.yaml"] = deployment(fmt.Sprintf("app%02d", i), image)
		files[dir+"/cm.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%02d}\ndata: {v: \"1\"}\n", i)
	}
	files["apps/app01/broken.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"
	files["apps/app02/notes.yaml"] = "just: data\n"
	r.Write(files)
	base := r.Commit("base")

	head := map[string]string{}
	for i := 0; i < 14; i += 2 {
		dir := fmt.Sprintf("apps/app%02d", i)
		image := "app:2.0"
		if i%4 == 0 {
			image = "app:latest"
		}
		extra := ""
		if i == 6 {
			extra = "  annotations:\n    plumb.dev/ignore: test/latest-tag,test/nothing\n"
		}
		head[dir+"/deploy.yaml"] = deployment(fmt.Sprintf("app%02d", i), image, extra)
		head[dir+"/cm.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%02d}\ndata: {v: \"2\"}\n", i)
	}
	head["apps/app13/dup.yaml"] = deployment("app13", "app:1.0")
	head["apps/app20/deploy.yaml"] = deployment("app20", "app")
	r.Write(head)
	r.Remove("apps/app05")
	return r, base
}

func marshal(t *testing.T, r *report.Report) []byte {
	t.Helper()
	b, err := report.MarshalJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestShardedRunsMergeIntoTheUnshardedReport(t *testing.T) {
	r, base := shardRepo(t)
	file := &config.File{Suppressions: []config.Suppression{
		{Object: &config.ObjectSelector{Name: "app09"}, Reason: "accepted", Line: 2, Column: 5},
		{Path: "apps/app01/**", Reason: "old", Until: "2024-01-01", Line: 4, Column: 5},
	}}
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"single revision", nil},
		{"pull request", []string{"--base-ref", base}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			whole, err := check(context.Background(), testConfig(t, r.Dir, file, mode.args...), withLatestTag)
			if err != nil {
				t.Fatal(err)
			}
			want := marshal(t, whole.Report)
			for _, n := range []int{1, 2, 3, 5} {
				var parts []report.ShardReport
				for i := 1; i <= n; i++ {
					args := append([]string{"--shard", fmt.Sprintf("%d/%d", i, n)}, mode.args...)
					res, err := check(context.Background(), testConfig(t, r.Dir, file, args...), withLatestTag)
					if err != nil {
						t.Fatal(err)
					}
					read, err := report.ReadJSON(marshal(t, res.Report))
					if err != nil {
						t.Fatal(err)
					}
					parts = append(parts, report.ShardReport{Name: fmt.Sprintf("shard-%d.json", i), Report: read})
				}
				// Any order of the files.
				parts[0], parts[len(parts)-1] = parts[len(parts)-1], parts[0]
				merged, err := Merge(parts)
				if err != nil {
					t.Fatalf("%d shards: %v", n, err)
				}
				if got := marshal(t, merged); !bytes.Equal(got, want) {
					t.Errorf("%d shards merged differ from the unsharded report:\n%s", n, firstDifference(got, want))
				}
			}
		})
	}
}

func firstDifference(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if !bytes.Equal(gl[i], wl[i]) {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(gl), len(wl))
}

func TestMergeRefusesIncompleteOrForeignShards(t *testing.T) {
	r, base := shardRepo(t)
	run := func(args ...string) report.ShardReport {
		res, err := check(context.Background(), testConfig(t, r.Dir, nil, args...), withLatestTag)
		if err != nil {
			t.Fatal(err)
		}
		read, err := report.ReadJSON(marshal(t, res.Report))
		if err != nil {
			t.Fatal(err)
		}
		return report.ShardReport{Name: "shard " + fmt.Sprint(args), Report: read}
	}
	s1, s2, s3 := run("--shard", "1/3"), run("--shard", "2/3"), run("--shard", "3/3")
	head := r.Commit("head") // the working tree stays as it is
	for _, c := range []struct {
		name  string
		parts []report.ShardReport
		want  string
	}{
		{"missing", []report.ShardReport{s1, s3}, "missing shard reports: 2/3"},
		{"twice", []report.ShardReport{s1, s2, s2, s3}, "shard 2/3 is given twice"},
		{"other count", []report.ShardReport{s1, s2, s3, run("--shard", "1/2")}, "merge the shards of one run"},
		{"not a shard", []report.ShardReport{s1, s2, s3, run()}, "is not a shard report"},
		// A pull-request shard among single-revision ones, or shards
		// compared with different bases: their statuses would not agree.
		{"pull-request mode and not", []report.ShardReport{s1, run("--shard", "2/3", "--base-ref", base), s3},
			"shard [--shard 1/3] checked a single revision (no --base-ref) but shard [--shard 2/3 --base-ref " + base + "] was compared with base commit " + base},
		{"other bases", []report.ShardReport{run("--shard", "1/3", "--base-ref", base), run("--shard", "2/3", "--base-ref", head), run("--shard", "3/3", "--base-ref", base)},
			"was compared with base commit " + base + " but shard [--shard 2/3 --base-ref " + head + "] was compared with base commit " + head},
	} {
		_, err := Merge(c.parts)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
