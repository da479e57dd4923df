package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile input that is bounded and located: what a pull request from a
// stranger could still make plumb do — write or read outside the
// repository through .plumb.yaml, hang on a special file, crash or spin
// on a kustomize input, lose the JSON report, take gigabytes through a
// check expression, an inspection rule, a generator, a var or a large
// target, or read a device as a shard report. Each case runs the binary
// with its peak memory and time bounded (runBounded), and asserts the
// message at its file and line; the other inputs are still checked.

// boundedOKFinding is reported in every run of boundedRepo: the other input.
const boundedOKFinding = "ok/cm.yaml:3:1: error: ConfigMap has no metadata.name: every object needs a name [manifest/missing-name]"

// failed reports whether an exit code says the run found what it should:
// 1 (a finding) or 2 (an input error). Which of the two a repository's
// own content gives is the exit-code policy's business; a configuration plumb cannot use
// is always 2.
func failed(code int) bool { return code == 1 || code == 2 }

// mkfifo makes a named pipe (nothing ever writes to it).
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
}

// sparse makes a file of size bytes that takes no disk space.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// boundedRepo writes the repository the cases read parts of.
func boundedRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	big := strings.Repeat("x", 100_000)
	check := func(id, expect, msg string) string {
		s := "id: " + id + "\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: object\n  kind: [ConfigMap]\n" +
			"facts:\n  - name: k\n    gatherer: manifest@v1\n    argument: data.k\nexpectations:\n  - name: e\n    expect: '" + expect + "'\n"
		if msg != "" {
			s += "    failure_message: '" + msg + "'\n"
		}
		return s
	}
	var refs strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&refs, "        - {name: E%d, value: a$(V)}\n", i)
	}
	var keys strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&keys, "      - k%d=big.txt\n", i)
	}
	var cms strings.Builder
	for i := 0; i < 10_000; i++ {
		fmt.Fprintf(&cms, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n  namespace: x\ndata:\n  k: v\n", i)
	}
	writeTree(t, repo, map[string]string{
		"ok/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
		// Item 2: named pipes read by kustomize.
		"kfifo/kustomization.yaml": "resources: [b.yaml]\n",
		"gfifo/kustomization.yaml": "configMapGenerator:\n  - name: g\n    files: [b.txt]\n",
		// Item 3: aliases that refer to themselves, in kustomize inputs.
		"rec1/kustomization.yaml": "resources: [cm.yaml]\n",
		"rec1/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n  namespace: x\ndata: &A\n  b: *A\n",
		"rec2/kustomization.yaml": "resources: [cm.yaml]\n",
		"rec2/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n  namespace: x\nspec: &A\n  a: 1\n  c:\n    <<: *A\n",
		// Item 4: numbers JSON cannot hold.
		"nan/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: x\n  labels:\n    tier: .inf\nspec:\n  replicas: .nan\n" +
			"  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n        - name: .inf\n          image: r.io/i:1\n",
		// Item 5: check expressions that build large values.
		"cel/cm/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: x\ndata:\n  k: " + big + "\n",
		"cel/cat/JOIN1.yaml": check("JOIN1", `facts.k.split("").map(x, facts.k).join("") != ""`, ""),
		"cel/cat/NEST1.yaml": check("NEST1", `facts.k.split("").map(x, facts.k.split("").map(y, y + x)).size() > 0`, ""),
		"cel/cat/MSG1.yaml":  check("MSG1", "false", `bad ${facts.k.split("").map(x, facts.k)}`),
		"cel/cat/MSG2.yaml":  check("MSG2", "false", `bad ${facts.k.split("").map(x, facts.k).join("")}`),
		"cel/cat/FINE1.yaml": check("FINE1", `facts.k.size() == 100000`, ""),
		"rulesbomb/rules.yaml": "- uuid: seed\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", ConfigMap]}}]\n" +
			"  actions: [{op: set-plugin-data, args: {path: a, value: xxxxxxxxxxxxxxxx}}]\n" +
			"- uuid: double\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", ConfigMap]}}]\n  actions:\n" +
			"    - op: set-plugin-data\n      args: {path: a, value: \"{plugin_data[a]}{plugin_data[a]}\"}\n      loop: [" +
			strings.TrimSuffix(strings.Repeat("1, ", 40), ", ") + "]\n",
		// Item 7: generator inputs.
		"gen100/kustomization.yaml": "configMapGenerator:\n  - name: g\n    files: [big.txt]\n",
		"gen200/kustomization.yaml": "configMapGenerator:\n  - name: g\n    files:\n" + keys.String(),
		"gen200/big.txt":            strings.Repeat("0123456789abcdef\n", 5<<20/17),
		// Item 8: a var substituted 500 times.
		"vars/big.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: x\ndata:\n  v: " + strings.Repeat("y", 1<<20) + "\n",
		"vars/use.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: use\n  namespace: x\nspec:\n  containers:\n    - name: c\n      image: r.io/i:1\n      env:\n" + refs.String(),
		"vars/kustomization.yaml": "resources: [big.yaml, use.yaml]\nvars:\n  - name: V\n    objref: {apiVersion: v1, kind: ConfigMap, name: big}\n" +
			"    fieldref: {fieldpath: data.v}\n",
		// Item 9: a target kustomize takes minutes to build.
		"big10k/kustomization.yaml": "resources: [cms.yaml]\n",
		"big10k/cms.yaml":           cms.String(),
	})
	mkfifo(t, filepath.Join(repo, "fifo", "b.yaml"))
	mkfifo(t, filepath.Join(repo, "kfifo", "b.yaml"))
	mkfifo(t, filepath.Join(repo, "gfifo", "b.txt"))
	sparse(t, filepath.Join(repo, "gen100", "big.txt"), 100<<20)
	return repo
}

func TestHostileInputIsBoundedAndLocated(t *testing.T) {
	repo := boundedRepo(t)
	cases := []struct {
		name string
		args []string
		// want are lines of the text report.
		want []string
		// notWant are texts the report must not hold.
		notWant []string
	}{
		{"a named pipe in the tree", []string{"fifo"}, []string{
			"fifo/b.yaml:1:1: error: the file is a named pipe (FIFO), not a regular file: plumb does not open it (reading it could block or never end); remove it or exclude it [manifest/unreadable]"}, nil},
		{"a named pipe as an argument", []string{"fifo/b.yaml"}, []string{
			"fifo/b.yaml:1:1: error: the file is a named pipe (FIFO), not a regular file"}, nil},
		{"a named pipe as a kustomize resource", []string{"kfifo"}, []string{
			`kfifo/kustomization.yaml:1:13: error: resources[0]: "b.yaml" is a named pipe (FIFO), not a regular file: plumb does not open it (reading it could block or never end) [render/kustomize]`}, nil},
		{"a named pipe as a generator file", []string{"gfifo"}, []string{
			`gfifo/kustomization.yaml:3:13: error: configMapGenerator[0].files[0]: "b.txt" is a named pipe (FIFO), not a regular file: plumb does not open it (reading it could block or never end) [render/kustomize]`}, nil},
		{"an alias inside itself in a kustomize resource", []string{"rec1"}, []string{
			"rec1/cm.yaml:6:7: error: nesting is deeper than 500 levels (limit --max-depth) [manifest/too-deep]",
			`rec1/kustomization.yaml:1:13: error: resources[0]: "cm.yaml" cannot be given to kustomize, which has no nesting or alias limits and would crash or spin on it: rec1/cm.yaml:6:7: nesting is deeper than 500 levels (limit --max-depth) [render/kustomize]`}, nil},
		{"a merge of an anchor into itself in a kustomize resource", []string{"rec2"}, []string{
			`rec2/kustomization.yaml:1:13: error: resources[0]: "cm.yaml" cannot be given to kustomize, which has no nesting or alias limits and would crash or spin on it: rec2/cm.yaml:6:7:`}, nil},
		{"a check building gigabytes", []string{"cel/cm", "--checks", "cel/cat"}, []string{
			"cel/cat/JOIN1.yaml:15:14: error: check JOIN1: expectations[0].expect: the expression was stopped at the limit of 4194304 bytes for a value one call builds or an evaluation returns: build smaller values",
			"cel/cat/MSG1.yaml:16:29: error: check MSG1: expectations[0].failure_message: the expression was stopped at the limit of 4194304 bytes",
			"cel/cat/MSG2.yaml:16:29: error: check MSG2: expectations[0].failure_message: the expression was stopped at the limit of 4194304 bytes",
			"cel/cat/NEST1.yaml:15:14: error: check NEST1: expectations[0].expect: the expression was stopped at the CEL cost limit of 5000000 units (or 10s) per evaluation"},
			[]string{"cel/cat/FINE1.yaml"}},
		{"inspection rules doubling a value", []string{"--rules", "rulesbomb/rules.yaml"}, []string{
			"ok/cm.yaml:1:1: error: inspection rule double could not be applied to ConfigMap x/ [ok]: actions[0] (set-plugin-data) at rulesbomb/rules.yaml:7:7: argument value is more than 1048576 bytes, the limit of one value an inspection rule writes"}, nil},
		{"a 100 MB generator file", []string{"gen100"}, []string{
			`gen100/kustomization.yaml:3:13: error: configMapGenerator[0].files[0]: "big.txt" is 104857600 bytes, over the 10485760-byte file-size limit: kustomize would hold all of it, and every copy it makes, in memory (raise the limit with --max-file-size) [render/kustomize]`}, nil},
		{"a 5 MiB file under 200 generator keys", []string{"gen200"}, []string{
			"gen200/kustomization.yaml:4:9: error: the generators of the objects built with gen200/kustomization.yaml read 1048573600 bytes of files, over the 67108864-byte size budget of a render target"}, nil},
		{"a 1 MiB var substituted 500 times", []string{"vars"}, []string{
			"vars/kustomization.yaml:3:5: error: vars[0]: $(V) is used 500 times and its value is about 1048833 bytes: substituting it writes about 524416500 bytes, over the 67108864-byte size budget of a render target"}, nil},
		{"a target over its time budget", []string{"big10k", "--max-target-time", "100ms"}, []string{
			"big10k/kustomization.yaml:1:1: error: kustomize build big10k did not finish within 100ms, the time budget of a render target: its objects are not checked; raise the budget with --max-target-time"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--root", ".", "--no-default-checks", "ok"}, c.args...)
			r := runBounded(t, repo, 0, args...)
			if !failed(r.code) {
				t.Errorf("exit %d, want 1 or 2", r.code)
			}
			for _, w := range append([]string{boundedOKFinding}, c.want...) {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("the report lacks %q", w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(r.stdout, w) {
					t.Errorf("the report holds %q", w)
				}
			}
			if t.Failed() {
				t.Logf("plumb %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.stdout, r.stderr)
			}
		})
	}
}

// One resource file of 10,000 ConfigMaps is checked, well within the
// default time budget of a target (upstream kustomize took 133 s of CPU to
// build it, comparing every resource with all the previous ones; the
// budget of one minute cut it off).
func TestLargeTargetWithinTheBudget(t *testing.T) {
	repo := boundedRepo(t)
	r := runBounded(t, repo, 0, "check", "--root", ".", "--no-cache", "big10k")
	if r.code != 0 || !strings.Contains(r.stdout, "10000 objects in 1 target checked") {
		t.Errorf("exit %d\nstdout:\n%.3000s\nstderr:\n%.2000s", r.code, r.stdout, r.stderr)
	}
	if r.cpu > 20*time.Second || r.elapsed > 60*time.Second {
		t.Errorf("the run took %v (CPU %v)", r.elapsed, r.cpu)
	}
}

// plumb render and plumb compare -f refuse a named pipe too.
func TestNamedPipesInRenderAndCompare(t *testing.T) {
	repo := boundedRepo(t)
	writeTree(t, repo, map[string]string{
		"ref/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
		"ref/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
	})
	r := runBounded(t, repo, 0, "render", "--root", ".", "fifo", "kfifo")
	for _, w := range []string{"fifo/b.yaml:1:1: error: the file is a named pipe (FIFO)", `kfifo/kustomization.yaml:1:13: error: resources[0]: "b.yaml" is a named pipe (FIFO)`} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("render: stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	r = runBounded(t, repo, 0, "compare", "-r", "ref", "-f", "fifo/b.yaml")
	if r.code != 2 || !strings.Contains(r.stderr, "fifo/b.yaml: cannot read the file: a named pipe (FIFO), not a regular file") {
		t.Errorf("compare -f: exit %d\n%s", r.code, r.stderr)
	}
}

// The JSON report is written when a manifest holds .nan and .inf, which
// are reported at their line and carried as the text written.
func TestNonFiniteNumbersKeepTheJSONReport(t *testing.T) {
	repo := boundedRepo(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runBounded(t, repo, 0, "check", "--root", ".", "--no-default-checks", "nan", "--format", "text", "--format", "json="+out)
	for _, w := range []string{
		"nan/d.yaml:7:11: error: .inf is a YAML number that JSON cannot hold (not a number or infinite): kubectl and the API server refuse the object; write a number, or quote it ('.inf') if it is text [manifest/non-finite-number]",
		"nan/d.yaml:9:13: error: .nan is a YAML number that JSON cannot hold",
		"nan/d.yaml:15:17: error: .inf is a YAML number that JSON cannot hold",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the report lacks %q:\n%s", w, r.stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the JSON report was not written: %v\n%s", err, r.stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the JSON report does not parse: %v", err)
	}
	if strings.Contains(r.stderr, "unsupported value") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// plumb merge refuses what is not a shard report before reading it whole.
func TestMergeRefusesHugeInputs(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	sparse(t, huge, 300<<20)
	// What the binary takes to start (the embedded schemas, the default
	// catalog): merge may add little to it, never the input's size.
	startup := runBounded(t, dir, 0, "version").peak
	for _, c := range []struct {
		path, want string
	}{
		{"/dev/zero", "plumb: /dev/zero: not a plumb JSON report: it does not start with '{' (plumb merge reads the JSON reports of plumb check --shard)"},
		{huge, "plumb: " + huge + ": the file is 314572800 bytes, over the 268435456-byte limit of a shard report"},
	} {
		r := runBounded(t, dir, startup+32<<20, "merge", c.path)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("merge %s: exit %d, stderr %q; want 2 and %q", c.path, r.code, r.stderr, c.want)
		}
	}
}

// A .plumb.yaml inside the repository is the pull request's own: the
// paths it names may not lead outside the repository, into .git, or
// through a symbolic link out of it (configuration errors, exit 2, at the
// line of the value), and nothing is written or read there. The same
// paths given on the command line are the workflow author's and work.
func TestConfigurationPathsStayInTheRepository(t *testing.T) {
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	writeTree(t, outside, map[string]string{"X1.yaml": "id: X1\n", "rules.yaml": "[]\n", "metadata.yaml": "apiVersion: v2\nparts: []\n"})
	writeTree(t, repo, map[string]string{
		"ok/cm.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
		".git/hooks/.keep":     "",
		"reports/.keep":        "",
		"inside/catalog/.keep": "",
	})
	if err := os.Symlink(outside, filepath.Join(repo, "out")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		config, want string
		// written is a file that must not exist afterwards.
		written string
	}{
		{`format: ["json=` + filepath.Join(outside, "x.json") + `"]`,
			`.plumb.yaml:1:10: format "json=` + filepath.Join(outside, "x.json") + `": the report file: it is an absolute path; a path in the repository's own configuration must be relative and stay inside the repository`,
			filepath.Join(outside, "x.json")},
		{`format: ["json=.git/hooks/post-checkout"]`,
			`.plumb.yaml:1:10: format "json=.git/hooks/post-checkout": the report file: it leads into .git, which plumb never reads or writes for the repository's configuration`,
			filepath.Join(repo, ".git", "hooks", "post-checkout")},
		{`format: ["markdown=../../x.md"]`,
			`.plumb.yaml:1:10: format "markdown=../../x.md": the report file: it leads outside the repository`, filepath.Join(base, "..", "x.md")},
		{`format: ["json=out/x.json"]`,
			`.plumb.yaml:1:10: format "json=out/x.json": the report file: it leads outside the repository through a symbolic link`,
			filepath.Join(outside, "x.json")},
		{"checks:\n  dirs: [../outside]\n", `.plumb.yaml:2:10: checks.dirs[0] "../outside": it leads outside the repository`, ""},
		{"rules:\n  files: [/proc/self/environ]\n", `.plumb.yaml:2:11: rules.files[0] "/proc/self/environ": it is an absolute path`, ""},
		{"reference:\n  path: out\n", `.plumb.yaml:2:9: reference.path "out": it leads outside the repository through a symbolic link`, ""},
		{"kubevirt:\n  templates: [/etc]\n", `.plumb.yaml:2:15: kubevirt.templates[0] "/etc": it is an absolute path`, ""},
		{"schema:\n  crds: [out]\n", `.plumb.yaml:2:10: schema.crds[0] "out": it leads outside the repository through a symbolic link`, ""},
		{"schema:\n  crds: [../outside/X1.yaml]\n", `.plumb.yaml:2:10: schema.crds[0] "../outside/X1.yaml": it leads outside the repository`, ""},
		{"policies: [out]\n", `.plumb.yaml:1:12: policies[0] "out": it leads outside the repository through a symbolic link`, ""},
		{"policies: [../outside/X1.yaml]\n", `.plumb.yaml:1:12: policies[0] "../outside/X1.yaml": it leads outside the repository`, ""},
	}
	for _, c := range cases {
		t.Run(c.config, func(t *testing.T) {
			writeTree(t, repo, map[string]string{".plumb.yaml": c.config + "\n"})
			r := runBounded(t, repo, 0, "check", "--no-default-checks", "ok")
			if r.code != 2 || !strings.Contains(r.stderr, "plumb: "+c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", r.code, r.stderr, c.want)
			}
			if c.written != "" {
				if _, err := os.Lstat(c.written); err == nil {
					t.Errorf("%s was written", c.written)
				}
			}
		})
	}
	// The configuration file itself, a check catalog's file and a rules
	// directory's file may not be links out of the repository either.
	writeTree(t, outside, map[string]string{"secret.yaml": "paths: [PLANTED-OUTSIDE-VALUE]\nfail_on: PLANTED-OUTSIDE-VALUE\n"})
	os.Remove(filepath.Join(repo, ".plumb.yaml"))
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(repo, ".plumb.yaml")); err != nil {
		t.Fatal(err)
	}
	r := runBounded(t, repo, 0, "check", "--no-default-checks", "ok")
	if want := "plumb: .plumb.yaml: the configuration file is inside the repository but it leads outside the repository through a symbolic link"; r.code != 2 ||
		!strings.Contains(r.stderr, want) || strings.Contains(r.stdout+r.stderr, "PLANTED-OUTSIDE-VALUE") {
		t.Errorf("a .plumb.yaml linked out: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	os.Remove(filepath.Join(repo, ".plumb.yaml"))
	for _, link := range []string{"inside/catalog/X1.yaml", "inside/rules/leak.yaml"} {
		p := filepath.Join(repo, link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "secret.yaml"), p); err != nil {
			t.Fatal(err)
		}
	}
	r = runBounded(t, repo, 0, "check", "--no-default-checks", "ok", "--checks", "inside/catalog", "--rules", "inside/rules")
	if strings.Contains(r.stdout+r.stderr, "PLANTED-OUTSIDE-VALUE") || !strings.Contains(r.stdout, "the path leads out of the directory it is read from") {
		t.Errorf("links out of a catalog or rules directory were read:\n%s\n%s", r.stdout, r.stderr)
	}
	// A CRD directory's file linked out of it is refused unread, like a
	// manifest's (schema's --crds and schema.crds read through an os.Root).
	if err := os.MkdirAll(filepath.Join(repo, "inside", "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(repo, "inside", "crds", "leak.yaml")); err != nil {
		t.Fatal(err)
	}
	r = runBounded(t, repo, 0, "check", "--no-default-checks", "ok", "--crds", "inside/crds")
	if want := "inside/crds/leak.yaml:1:1: error: refusing to read: the path leaves the repository"; r.code != 2 ||
		strings.Contains(r.stdout+r.stderr, "PLANTED-OUTSIDE-VALUE") || !strings.Contains(r.stdout, want) {
		t.Errorf("a CRD file linked out: exit %d\n%s\n%s\nwant 2 and %q", r.code, r.stdout, r.stderr, want)
	}

	// A report path inside the repository is written there.
	writeTree(t, repo, map[string]string{".plumb.yaml": `format: ["json=reports/r.json", text]` + "\n"})
	if r := runBounded(t, repo, 0, "check", "--no-default-checks", "ok"); r.code != 0 {
		t.Errorf("inside: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "reports", "r.json")); err != nil {
		t.Errorf("the report inside the repository was not written: %v", err)
	}
	// The command line may name anything.
	os.Remove(filepath.Join(repo, ".plumb.yaml"))
	flagged := filepath.Join(outside, "flag.json")
	if r := runBounded(t, repo, 0, "check", "--no-default-checks", "ok", "--format", "json="+flagged); r.code != 0 {
		t.Errorf("--format outside: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(flagged); err != nil {
		t.Errorf("--format json=%s was not written: %v", flagged, err)
	}
}

// Every error names its file and line (item 16).
func TestEveryErrorNamesItsLine(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	writeTree(t, repo, map[string]string{
		"ok/cm.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
		"params.yaml":            "params:\n  FOO: bar\ntemplate_params:\n  nope:\n    X: y\n",
		"control.yaml":           "paths: [ok]\nfail_on: err\x01or\n",
		"utf8.yaml":              "paths: [ok]\nfail_on: caf\xe9\n",
		"syntax.yaml":            "paths: [ok]\nlimits:\n  max_depth: 3\n  bad: [1, 2\n",
		"env/app.env":            "MODE=fast\nLOG=caf\xe9\n",
		"env/kustomization.yaml": "configMapGenerator:\n  - name: g\n    envs: [app.env]\n",
		"ref/metadata.yaml":      "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
		"ref/cm.yaml":            "{{- /* a comment\n   over two lines */ -}}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  bad: [unclosed\n",
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", "params.yaml", "ok"}, "params.yaml:2:3: error: params: FOO is set but no OpenShift Template was found among the inputs"},
		{[]string{"--config", "params.yaml", "ok"}, "params.yaml:4:3: error: template_params: no processed Template is named nope"},
		{[]string{"--config", "control.yaml"}, "plumb: control.yaml:2:13: control character U+0001: the configuration must be UTF-8 text without control characters"},
		{[]string{"--config", "utf8.yaml"}, "plumb: utf8.yaml:2:13: invalid UTF-8 byte 0xe9: the configuration must be UTF-8 text without control characters"},
		{[]string{"--config", "syntax.yaml"}, "plumb: syntax.yaml:4:3: YAML syntax error: did not find expected ',' or ']'"},
		{[]string{"env"}, "env/app.env:2:8: error: line 2 is not valid UTF-8, which kustomize cannot read (configMapGenerator[0].envs[0] of env/kustomization.yaml reads this env file"},
		{[]string{"--reference", "ref", "ok"}, "ref/cm.yaml:9: error: failed to parse template cm.yaml with empty data"},
	} {
		args := append([]string{"check", "--root", ".", "--no-default-checks"}, c.args...)
		r := runBounded(t, repo, 0, args...)
		if !failed(r.code) || !strings.Contains(r.stdout+r.stderr, c.want) {
			t.Errorf("plumb %s: exit %d, want %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, c.want, r.stdout, r.stderr)
		}
	}
}
