package helm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// tgz is a chart archive of files (names below the chart's directory,
// name), each a string or, for an int, that many zero bytes.
func tgz(t testing.TB, name string, files map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	all := map[string]any{"Chart.yaml": "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"}
	for k, v := range files {
		all[k] = v
	}
	for _, k := range sortedKeys(all) {
		var data []byte
		switch v := all[k].(type) {
		case string:
			data = []byte(v)
		case []byte:
			data = v
		case int:
			data = make([]byte, v)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name + "/" + k, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// archiveChart is chart c with the archives under its charts/.
func archiveChart(archives map[string][]byte) fstest.MapFS {
	fsys := fstest.MapFS{
		"c/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n")},
		"c/templates/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
	}
	for k, v := range archives {
		fsys["c/"+k] = &fstest.MapFile{Data: v}
	}
	return fsys
}

// What subchart archives decompress to counts against the chart's one
// size budget, archive by archive and inside archives, stopped where it
// goes over and reported at the archive; their files are held to the
// file-size and YAML limits of the chart directory's files.
func TestArchiveLimits(t *testing.T) {
	limits := manifest.Limits{MaxTargetBytes: 1 << 20, MaxFileBytes: 512 << 10}
	ten := map[string][]byte{}
	for i := range 10 {
		ten[fmt.Sprintf("charts/s%d-0.1.0.tgz", i)] = tgz(t, fmt.Sprintf("s%d", i), map[string]any{"files/blob": 200 << 10})
	}
	nested := tgz(t, "outer", map[string]any{"charts/inner-0.1.0.tgz": tgz(t, "inner", map[string]any{
		"files/a": 400 << 10, "files/b": 400 << 10, "files/c": 400 << 10})})
	// large is 300 KiB decompressed: four over the budget if counted.
	large := tgz(t, "large", map[string]any{"files/blob": 300 << 10})
	cases := []struct {
		name     string
		archives map[string][]byte
		want     string // "" loads
	}{
		{"ten archives together over the budget", ten,
			"c/charts/s5-0.1.0.tgz: the chart is larger than 1048576 bytes with what its archives decompress to (the decompression was stopped in s5/files/blob), the size budget of a render target"},
		{"an archive inside an archive", map[string][]byte{"charts/outer-0.1.0.tgz": nested},
			"c/charts/outer-0.1.0.tgz: the chart is larger than 1048576 bytes with what its archives decompress to (the decompression was stopped in outer/charts/inner-0.1.0.tgz/inner/files/c)"},
		{"a file over the file-size limit", map[string][]byte{"charts/big-0.1.0.tgz": tgz(t, "big", map[string]any{"files/blob": 600 << 10})},
			"c/charts/big-0.1.0.tgz: big/files/blob, a file in the archive, is over the 524288-byte file-size limit (raise it with --max-file-size)"},
		{"an alias inside itself in an archive's values.yaml", map[string][]byte{"charts/v-0.1.0.tgz": tgz(t, "v", map[string]any{"values.yaml": "a: &A {b: *A}\n"})},
			"c/charts/v-0.1.0.tgz: v/values.yaml:1:4: nesting is deeper than 500 levels (limit --max-depth)"},
		{"archives within the budget", map[string][]byte{"charts/s0-0.1.0.tgz": ten["charts/s0-0.1.0.tgz"], "charts/s1-0.1.0.tgz": ten["charts/s1-0.1.0.tgz"]}, ""},
		{"archives Helm does not unpack", map[string][]byte{"files/s0.tgz": large, "charts/_s1.tgz": large,
			"charts/s2-0.1.0.tgz": large, "charts/.s3.tgz": large}, ""},
		{"a damaged archive is left to Helm's loader", map[string][]byte{"charts/bad-0.1.0.tgz": []byte("not gzip")},
			"error unpacking subchart bad-0.1.0.tgz in c: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadChart(archiveChart(c.archives), "c", limits)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%v", err)
			case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("%v\nwant %s", err, c.want)
			}
		})
	}
}

func TestSubchartArchive(t *testing.T) {
	for rel, want := range map[string]bool{
		"charts/a-1.0.0.tgz":            true,
		"charts/sub/charts/b-1.0.0.tgz": true,
		"charts/a.tgz/x.tgz":            false,
		"charts/_a.tgz":                 false,
		"charts/.a.tgz":                 false,
		"charts/_sub/charts/b.tgz":      false,
		"files/a.tgz":                   false,
		"charts/sub/files/b.tgz":        false,
		"charts/a.tar.gz":               false,
		"a.tgz":                         false,
	} {
		if got := subchartArchive(rel); got != want {
			t.Errorf("subchartArchive(%q) = %v", rel, got)
		}
	}
}
