package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostileChart is a chart directory's files: a Chart.yaml, values and one
// ConfigMap template, plus extra.
func hostileChart(name string, extra map[string]string) map[string]string {
	files := map[string]string{
		name + "/Chart.yaml":        "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n",
		name + "/values.yaml":       "replicas: 1\n",
		name + "/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: x\ndata:\n  a: \"1\"\n",
	}
	for k, v := range extra {
		files[name+"/"+k] = v
	}
	return files
}

// A chart is the pull request's content like any manifest: its files are
// held to the loader's limits (special files unopened, the file size, the
// nesting and alias limits of the YAML Helm parses) and its render to the
// target's budget in time and size, each reported at the file and line.
func TestHostileCharts(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	tree := map[string]string{}
	for name, extra := range map[string]map[string]string{
		"hfifo":   nil,
		"hvfifo":  nil,
		"hbig":    nil,
		"hlink":   nil,
		"halias":  {"values.yaml": "a: &A {b: *A}\n"},
		"hlaughs": {"values.yaml": laughs()},
		"huntil":  {"templates/loop.yaml": "{{ range until 100000000 }}{{ end }}\n"},
		"hout":    {"templates/out.yaml": "{{ $a := repeat 1000000 \"x\" }}{{ range until 200 }}{{ $a }}{{ end }}\n"},
		"htrace":  {"templates/n.yaml": "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n"},
		"hdouble": {"templates/d.yaml": "{{ $a := \"x\" }}{{ range until 40 }}{{ $a = printf \"%s%s\" $a $a }}{{ end }}\n"},
		"hnest":   {"templates/d.yaml": "{{ $d := dict \"k\" \"v\" }}{{ range until 40 }}{{ $d = dict \"a\" $d \"b\" $d }}{{ end }}{{ $d }}\n"},
		"hcycle":  {"templates/d.yaml": "{{ $d := dict }}{{ $_ := set $d \"self\" $d }}{{ toYaml $d }}\n"},
		"hindent": {"templates/d.yaml": "{{ nindent 2000000000 \"x\" }}\n"},
		"hloop":   {"templates/t.yaml": "{{ tpl \"{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}\" . }}\n"},
		"hinc10":  cycleChart(10, "include"),
		"hinc60":  cycleChart(60, "include"),
		"htmpl10": cycleChart(10, "template"),
		"htplself": {"values.yaml": "x: '{{ tpl .Values.x . }}'\n",
			"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ tpl .Values.x . }}\n"},
		"htpldefine": {"templates/t.yaml": "{{ tpl \"{{ define \\\"x\\\" }}{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}{{ end }}{{ template \\\"x\\\" }}\" . }}\n"},
	} {
		for k, v := range hostileChart(name, extra) {
			tree[k] = v
		}
	}
	tree["values/prod.yaml"] = "x: &A {b: *A}\n"
	writeTree(t, repo, tree)
	mkfifo(t, filepath.Join(repo, "hfifo", "templates", "x.yaml"))
	mkfifo(t, filepath.Join(repo, "hvfifo", "values-prod.yaml"))
	sparse(t, filepath.Join(repo, "hbig", "files", "big.txt"), 100<<20)
	sparse(t, filepath.Join(repo, "big.bin"), 100<<20)
	if err := os.Symlink(filepath.Join("..", "big.bin"), filepath.Join(repo, "hlink", "big.txt")); err != nil {
		t.Fatal(err)
	}
	// Subchart archives: ten of 99 MiB each (in 9 MiB files), ten of
	// 9 MiB (each within the budget, together over it), one holding an
	// 11 MiB file. The same archive bytes serve under ten names: plumb
	// stops before rendering any.
	archives := map[string]string{}
	for _, name := range []string{"htgz99", "htgz9", "htgzfile"} {
		for k, v := range hostileChart(name, nil) {
			archives[k] = v
		}
	}
	archives["htgzfile/charts/big-0.1.0.tgz"] = zeroTgz(t, "big", map[string]int{"files/blob": 11 << 20})
	tgz99 := map[string]int{}
	for i := range 11 {
		tgz99[fmt.Sprintf("files/blob%02d", i)] = 9 << 20
	}
	tgz99data, tgz9data := zeroTgz(t, "s", tgz99), zeroTgz(t, "s", map[string]int{"files/blob": 9 << 20})
	for i := range 10 {
		archives[fmt.Sprintf("htgz99/charts/s%d-0.1.0.tgz", i)] = tgz99data
		archives[fmt.Sprintf("htgz9/charts/s%d-0.1.0.tgz", i)] = tgz9data
	}
	writeTree(t, repo, archives)
	outside := filepath.Join(filepath.Dir(repo), "outside.txt")
	writeTree(t, filepath.Dir(repo), map[string]string{"outside.txt": "PLANTED-OUTSIDE-VALUE\n"})
	writeTree(t, repo, hostileChart("hescape", map[string]string{"templates/f.yaml": "{{ .Files.Get \"leak.txt\" }}\n"}))
	if err := os.Symlink(outside, filepath.Join(repo, "hescape", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"a named pipe among the templates", []string{"hfifo"},
			"hfifo/templates/x.yaml: error: the chart cannot be read: a named pipe (FIFO), not a regular file: plumb does not open it (reading it could block or never end) [render/helm-chart]"},
		{"a named pipe as a values file", []string{"hvfifo"},
			"hvfifo/values-prod.yaml: error: the chart cannot be read: a named pipe (FIFO), not a regular file"},
		{"a 100 MB file in a chart", []string{"hbig"},
			"hbig/files/big.txt: error: the chart cannot be read: file is 104857600 bytes, over the 10485760-byte limit (raise it with --max-file-size) [render/helm-chart]"},
		{"a link to a 100 MB file in a chart", []string{"hlink"},
			"hlink/big.txt: error: the chart cannot be read: file is 104857600 bytes, over the 10485760-byte limit"},
		{"a link out of the repository in a chart", []string{"hescape"},
			`hescape/leak.txt: error: the chart cannot be read: the path leads out of the directory it is read from (a symbolic link or "..") [render/helm-chart]`},
		{"an alias inside itself in values.yaml", []string{"halias"},
			"halias/values.yaml:1:4: error: the chart cannot be read: nesting is deeper than 500 levels (limit --max-depth) [render/helm-chart]"},
		{"a billion laughs in values.yaml", []string{"hlaughs"},
			"error: the chart cannot be read: aliases expand to more than 100000 nodes"},
		{"an alias inside itself in a values file given with -f", []string{"huntil", "-f", "values/prod.yaml"},
			"values/prod.yaml:1:4: error: values file values/prod.yaml cannot be read: nesting is deeper than 500 levels (limit --max-depth) [render/helm-values]"},
		{"a list of 100,000,000 elements", []string{"huntil"},
			"huntil/templates/loop.yaml:1:9: error: template failed: executing \"huntil/templates/loop.yaml\" at <until 100000000>: error calling until: until 100000000: lists are limited to 1000000 elements [render/helm-template]"},
		{"a value doubled in a variable, which writes nothing", []string{"hdouble"},
			"hdouble/templates/d.yaml:1:43: error: template failed: executing \"hdouble/templates/d.yaml\" at <printf \"%s%s\" $a $a>: error calling printf: the result would be over 64 MiB: a template may not build values that large [render/helm-template]"},
		{"a map printed with itself nested forty times", []string{"hnest"},
			"error calling dict: the result would be over 64 MiB"},
		{"a map set into itself", []string{"hcycle"},
			`error calling set: set "self": the value holds the map it would be stored in`},
		{"a 2 GB indentation", []string{"hindent"},
			"error calling nindent: nindent: the result would exceed 67108864 bytes"},
		{"a render writing 200 MB", []string{"hout"},
			"hout/templates/out.yaml:1:39: error: template failed: the templates wrote (or plumb's trace of them took) more than 67108864 bytes, the size budget of a render target"},
		{"a loop of ten billion iterations that writes nothing", []string{"htrace"},
			"htrace/templates/n.yaml:1:33: error: template failed: the templates wrote (or plumb's trace of them took) more than 67108864 bytes"},
		{"a loop in tpl's text past the time budget", []string{"hloop", "--max-target-time", "2s"},
			"hloop/templates/t.yaml:1:3: error: template failed: the chart did not render within 2s, the time budget of a render target: raise it with --max-target-time or limits.max_target_time in .plumb.yaml, or bound the loop [render/helm-template]"},
		{"ten helpers including each other", []string{"hinc10"},
			`hinc10/templates/_helpers.tpl:10:22: error: template failed: include "h0" is nested in itself more than 1000 times, Helm's limit: the templates call each other in a cycle without end (h0 -> h1 -> h2 -> h3 -> h4 -> … 1 more … -> h6 -> h7 -> h8 -> h9 -> h0); make the recursion stop [render/helm-template]`},
		{"sixty helpers including each other", []string{"hinc60", "--max-target-time", "2s"},
			`hinc60/templates/_helpers.tpl:20:23: error: template failed: include "h20": 20000 include and tpl calls are running at once, plumb's limit: the templates call each other in a cycle without end (h20 -> h21 -> h22 -> h23 -> h24 -> … 51 more … -> h16 -> h17 -> h18 -> h19 -> h20); make the recursion stop [render/helm-template]`},
		{"ten helpers calling each other with template", []string{"htmpl10"},
			`htmpl10/templates/_helpers.tpl:9:31: error: template failed: template "h9" is nested 100000 templates deep, the limit (text/template's for {{template}}, counted across include and tpl): the templates call each other in a cycle without end (h9 -> h0 -> h1 -> h2 -> h3 -> … 1 more … -> h5 -> h6 -> h7 -> h8 -> h9); make the recursion stop [render/helm-template]`},
		{"a value that tpl renders with itself", []string{"htplself"},
			`htplself/templates/cm.yaml:6:8: error: template failed: tpl is called inside 100 tpl calls, plumb's limit (each copies the chart's templates): the template calls itself without end (tpl -> tpl); make the recursion stop [render/helm-template]`},
		{"a loop in a template tpl's text defines past the time budget", []string{"htpldefine", "--max-target-time", "2s"},
			"htpldefine/templates/t.yaml:1:3: error: template failed: the chart did not render within 2s, the time budget of a render target"},
		{"ten subchart archives of 99 MiB each", []string{"htgz99"},
			"htgz99/charts/s0-0.1.0.tgz: error: the chart cannot be read: the chart is larger than 67108864 bytes with what its archives decompress to (the decompression was stopped in s/files/blob07), the size budget of a render target (raise it with --max-target-size or limits.max_target_size in .plumb.yaml) [render/helm-chart]"},
		{"ten subchart archives of 9 MiB each, together over the budget", []string{"htgz9"},
			"htgz9/charts/s7-0.1.0.tgz: error: the chart cannot be read: the chart is larger than 67108864 bytes with what its archives decompress to (the decompression was stopped in s/files/blob)"},
		{"an 11 MiB file in a subchart archive", []string{"htgzfile"},
			"htgzfile/charts/big-0.1.0.tgz: error: the chart cannot be read: big/files/blob, a file in the archive, is over the 10485760-byte file-size limit (raise it with --max-file-size) [render/helm-chart]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--root", ".", "--no-default-checks"}, c.args...)
			r := runBounded(t, repo, 0, args...)
			if r.code != 1 || !strings.Contains(r.stdout, c.want) || strings.Contains(r.stdout+r.stderr, "PLANTED-OUTSIDE-VALUE") {
				t.Errorf("exit %d, want 1 and %q\nstdout:\n%.3000s\nstderr:\n%.2000s", r.code, c.want, r.stdout, r.stderr)
			}
		})
	}
}

// zeroTgz is a chart archive (chart name) holding files of zeros of the
// given sizes.
func zeroTgz(t *testing.T, name string, files map[string]int) string {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	chart := "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"
	if err := tw.WriteHeader(&tar.Header{Name: name + "/Chart.yaml", Mode: 0o644, Size: int64(len(chart))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(chart)); err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: name + "/" + k, Mode: 0o644, Size: int64(files[k])}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(make([]byte, files[k])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// cycleChart is the files of a chart whose n helpers include (call is
// "include") or {{template}} each other in a cycle, from its one template.
func cycleChart(n int, call string) map[string]string {
	var h strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&h, "{{- define \"h%d\" -}}{{ %s \"h%d\" . }}{{- end -}}\n", i, call, (i+1)%n)
	}
	return map[string]string{
		"templates/_helpers.tpl": h.String(),
		"templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: x\ndata:\n  a: \"{{ " + call + " \"h0\" . }}\"\n",
	}
}

// laughs is a billion-laughs values file: nine levels of ten aliases.
func laughs() string {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(n + ": &" + n + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", ") + "]\n")
		prev = n
	}
	return b.String()
}
