package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// Hostile input (issue 11, item 2), end to end through the CLI: each input
// a pull request could carry to exhaust, escape or crash plumb is an input
// error (exit 2) whose message names the file and line to change, the
// other inputs are still reported, and the run stays within generous
// bounds of time (a deadline) and memory. Memory is measured as what the
// run allocated in all (runtime/metrics' cumulative heap allocations), in
// process: it does not depend on the machine or on when the collector ran,
// and a billion laughs, a 100 MB file read whole or an unbounded loop would
// blow through it.

// hostileMaxAlloc bounds what one run may allocate.
const hostileMaxAlloc = 512 << 20

// hostileDeadline bounds one run on a loaded machine: not a measure of
// speed, a guard against a run that never ends.
const hostileDeadline = 2 * time.Minute

// measured runs plumb in-process in dir, within hostileDeadline, and
// returns what it printed and allocated.
func measured(t *testing.T, dir string, args ...string) (code int, stdout, stderr string, alloc uint64, elapsed time.Duration) {
	t.Helper()
	t.Chdir(dir)
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, stdout, stderr = plumb(t, args...)
	}()
	select {
	case <-done:
	case <-time.After(hostileDeadline):
		t.Fatalf("plumb %s: still running after %v", strings.Join(args, " "), hostileDeadline)
	}
	elapsed = time.Since(start)
	metrics.Read(sample)
	return code, stdout, stderr, sample[0].Value.Uint64() - before, elapsed
}

// okFinding is reported in every run: the other input.
const okFinding = "ok/cm.yaml:3:1: error: ConfigMap has no metadata.name: every object needs a name [manifest/missing-name]"

// hostileRepo writes the repository every case reads a part of; outside is
// a directory next to it that nothing may read.
func hostileRepo(t *testing.T) (repo, outside string) {
	t.Helper()
	base := t.TempDir()
	repo, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	writeTree(t, outside, map[string]string{"stolen.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n  namespace: x\n"})

	var laughs strings.Builder
	laughs.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&laughs, "a%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	ten := "[1,2,3,4,5,6,7,8,9,10]"
	nested := ten + ".all(a, " + ten + ".all(b, " + ten + ".all(c, " + ten + ".all(d, " + ten + ".all(e, " + ten + ".all(f, " + ten +
		".all(g, facts.n != string(a+b+c+d+e+f+g))))))))"
	check := func(id, expect string) string {
		return "id: " + id + "\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: object\n  kind: [ConfigMap]\n" +
			"facts:\n  - name: n\n    gatherer: manifest@v1\n    argument: metadata.name\nexpectations:\n  - name: e\n    expect: '" + expect + "'\n"
	}
	writeTree(t, repo, map[string]string{
		"ok/cm.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
		"laughs/laughs.yaml": laughs.String(),
		"deep/deep.yaml":     "a: " + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + "\n",
		"utf8/bad.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n",
		// Leaving the repository.
		"dotdot/kustomization.yaml": "resources:\n  - ../../outside/stolen.yaml\n",
		"passwd/kustomization.yaml": "resources:\n  - cm.yaml\n  - /etc/passwd\nconfigMapGenerator:\n  - name: g\n    files:\n      - /etc/passwd\n" +
			"secretGenerator:\n  - name: s\n    envs:\n      - ../../../../../../../etc/passwd\npatches:\n  - path: /etc/passwd\n",
		"passwd/cm.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
		"symkust/kustomization.yaml": "resources:\n  - link.yaml\n",
		"remote/kustomization.yaml":  "resources:\n  - https://plumb.invalid/org/repo//base?ref=v1\n  - https://plumb.invalid/base.yaml\n",
		// A reference whose templates try to read the environment, files
		// and the network, or to leave the reference.
		"ref/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n" +
			"          - path: env.yaml\n          - path: expandenv.yaml\n          - path: host.yaml\n          - path: readfile.yaml\n",
		"ref/env.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  home: '{{ env \"HOME\" }}'\n",
		"ref/expandenv.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  home: '{{ expandenv \"$HOME\" }}'\n",
		"ref/host.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ip: '{{ getHostByName \"example.com\" }}'\n",
		"ref/readfile.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\ndata:\n  pw: '{{ readFile \"/etc/passwd\" }}'\n",
		"refloop/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: loop.yaml\n",
		"refloop/loop.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\ndata:\n  k: '{{ range 10000000000 }}{{ end }}'\n",
		"refout/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n" +
			"          - path: ../../outside/stolen.yaml\ntemplateFunctionFiles:\n  - /etc/passwd\n",
		// Checks, inspection rules and KubeVirt rules.
		"catalog/cost/COST1.yaml": check("COST1", nested),
		"catalog/re/LA1.yaml":     check("LA1", `facts.n.matches("^(?!bad)")`),
		"rules/lookaround.yaml":   "- uuid: la\n  conditions:\n    - {op: contains, args: {value: \"{node.metadata.name}\", regex: \"(?<=x)y\"}}\n  actions: [{op: add-trait, args: {name: t}}]\n",
		"rules/loop.yaml": "- uuid: each-item\n  conditions:\n    - op: eq\n      args: {values: [\"{item}\", 0]}\n      loop: \"{node.spec.items}\"\n" +
			"  actions: [{op: add-trait, args: {name: has-zero}}]\n",
		"huge/list.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: big\n  namespace: x\nspec:\n  items: [" + strings.Repeat("1, ", 200_000) + "0]\n",
		"vm/vm.yaml": "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: la\n  namespace: x\n  annotations:\n    vm.kubevirt.io/validations: |\n" +
			"      [{\"name\": \"machine\", \"path\": \"jsonpath::.spec.domain.machine.type\", \"rule\": \"regex\", \"message\": \"m\",\n" +
			"        \"regex\": \"q(?!35)\"}]\nspec:\n  template:\n    spec:\n      domain:\n        machine: {type: q35}\n",
	})
	// A kustomize bomb: 14 layers, each including the next layer's two
	// kustomizations; krusty would build the last one 8,192 times.
	bomb := map[string]string{
		"bomb/L14/kustomization.yaml": "resources: [cm.yaml]\n",
		"bomb/L14/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n",
		"bomb/top/kustomization.yaml": "resources: [../L1A, ../L1B]\n",
	}
	for i := 13; i >= 1; i-- {
		next := fmt.Sprintf("[../L%dA, ../L%dB]", i+1, i+1)
		if i == 13 {
			next = "[../L14]"
		}
		for _, x := range []string{"a", "b"} {
			bomb[fmt.Sprintf("bomb/L%d%s/kustomization.yaml", i, strings.ToUpper(x))] = fmt.Sprintf("namePrefix: %s%d-\nresources: %s\n", x, i, next)
		}
	}
	// A parameter bomb: a megabyte referenced two thousand times.
	bomb["tbomb/t.yaml"] = "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\nparameters:\n  - name: P\n    value: " +
		strings.Repeat("x", 1<<20) + "\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: c\n    data:\n      k: \"" +
		strings.Repeat("${P}", 2000) + "\"\n"
	// A JSON patch bomb: 26 copies of a subtree into itself.
	ops := "      - op: add\n        path: /spec\n        value: {a: \"0123456789\"}\n"
	for i := 0; i < 26; i++ {
		ops += fmt.Sprintf("      - op: copy\n        from: /spec\n        path: /spec/k%d\n", i)
	}
	bomb["jbomb/kustomization.yaml"] = "resources: [cm.yaml]\npatches:\n  - target: {kind: ConfigMap, name: c}\n    patch: |-\n" + ops
	bomb["jbomb/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n"
	// A replacements bomb: thirty replacements copying a's data into b and
	// back.
	var reps strings.Builder
	for i := 0; i < 30; i++ {
		src, dst := "a", "b"
		if i%2 == 1 {
			src, dst = "b", "a"
		}
		fmt.Fprintf(&reps, "  - source: {kind: ConfigMap, name: %s, fieldPath: data}\n    targets:\n      - select: {kind: ConfigMap, name: %s}\n"+
			"        fieldPaths: [data.r%d]\n        options: {create: true}\n", src, dst, i)
	}
	bomb["rbomb/kustomization.yaml"] = "resources: [cm.yaml]\nreplacements:\n" + reps.String()
	bomb["rbomb/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  s: x\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\ndata:\n  s: x\n"
	writeTree(t, repo, bomb)
	// 100 MiB, sparse: what matters is that plumb never reads it whole.
	if err := os.MkdirAll(filepath.Join(repo, "big"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(repo, "big", "huge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for link, target := range map[string]string{"symlink/link.yaml": filepath.Join(outside, "stolen.yaml"), "symkust/link.yaml": filepath.Join(outside, "stolen.yaml")} {
		p := filepath.Join(repo, link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	return repo, outside
}

func TestHostileInput(t *testing.T) {
	repo, _ := hostileRepo(t)
	cases := []struct {
		name string
		args []string
		// want are lines of the report (and of stderr, prefixed "plumb: ").
		want []string
		// maxAlloc overrides hostileMaxAlloc (bytes).
		maxAlloc uint64
	}{
		{"billion laughs", []string{"laughs"}, []string{
			`laughs/laughs.yaml:5:45: error: aliases expand to more than 100000 nodes (a "billion laughs" document?); limit --max-alias-nodes [manifest/alias-limit]`}, 0},
		// Refused by its size before it is read: the run allocates far
		// less than the file's 100 MiB.
		{"a 100 MB file", []string{"big"}, []string{
			"big/huge.yaml:1:1: error: file is 104857600 bytes, over the 10485760-byte limit (raise it with --max-file-size) [manifest/file-too-large]"}, 32 << 20},
		{"10,000-level nesting", []string{"deep"}, []string{
			"deep/deep.yaml:1:504: error: nesting is deeper than 500 levels (limit --max-depth) [manifest/too-deep]"}, 0},
		{"invalid UTF-8", []string{"utf8"}, []string{
			"utf8/bad.yaml:4:12: error: invalid UTF-8 byte 0xe9: manifests must be UTF-8 text [manifest/invalid-utf8]"}, 0},
		{"a symlink leaving the repository", []string{"symlink"}, []string{
			`symlink/link.yaml:1:1: error: refusing to read: the path leaves the repository (a symlink or ".." pointing outside it) [manifest/outside-repository]`}, 0},
		{"a kustomize resource through a symlink leaving the repository", []string{"symkust"}, []string{
			`symkust/kustomization.yaml:2:5: error: resources[0]: resource "link.yaml" leads outside the repository (through a symlink) [render/kustomize]`}, 0},
		{"a kustomize ../ path leaving the repository", []string{"dotdot"}, []string{
			`dotdot/kustomization.yaml:2:5: error: resources[0]: "../../outside/stolen.yaml" leads outside the repository [render/kustomize]`}, 0},
		{"a kustomization pointing at /etc/passwd", []string{"passwd"}, []string{
			`passwd/kustomization.yaml:3:5: error: resources[1]: "/etc/passwd" is an absolute path: kustomize paths are relative to the kustomization, and plumb reads only the repository [render/kustomize]`,
			`passwd/kustomization.yaml:7:9: error: configMapGenerator[0].files[0]: "/etc/passwd" is an absolute path: kustomize paths are relative to the kustomization, and plumb reads only the repository [render/kustomize]`,
			`passwd/kustomization.yaml:11:9: error: secretGenerator[0].envs[0]: "../../../../../../../etc/passwd" leads outside the repository [render/kustomize]`,
			`passwd/kustomization.yaml:13:5: error: patches[0].path: "/etc/passwd" is an absolute path: kustomize paths are relative to the kustomization, and plumb reads only the repository [render/kustomize]`}, 0},
		{"a remote base (not fetched by default)", []string{"remote"}, []string{
			`remote/kustomization.yaml:2:5: warning: resources[0]: remote "https://plumb.invalid/org/repo//base?ref=v1" (and resources[1]: "https://plumb.invalid/base.yaml"): target not rendered, because plumb builds only from the repository; pass --allow-remote to let kustomize fetch it, or vendor it into the repository [render/remote]`}, 0},
		// Refused before krusty builds anything (it took 80 s to build).
		{"a kustomize bomb", []string{"bomb/top"}, []string{
			"bomb/L1A/kustomization.yaml:2:13: error: resources[0]: building bomb/L1A takes more than 10000 kustomize builds (kustomize builds a base once for every path that reaches it, and this entry alone takes 6143): include each base once, or through fewer layers that include the same bases [render/kustomize]",
			"bomb/L1B/kustomization.yaml:2:13: error: resources[0]: building bomb/L1B takes more than 10000 kustomize builds"}, 0},
		// krusty ran until memory ran out.
		{"a JSON patch copy bomb", []string{"jbomb"}, []string{
			"jbomb/kustomization.yaml:8:9: error: more than 10 JSON patch copy operations apply to the objects built with jbomb/kustomization.yaml (each can double an object: thirty make it a billion times larger): copy fewer fields, or write the values where they belong [render/kustomize]"}, 0},
		// krusty took a minute and 5 GB.
		{"a replacements bomb", []string{"rbomb"}, []string{
			"rbomb/kustomization.yaml:8:5: error: more than 10 replacements read an object that an earlier replacement wrote to, in the objects built with rbomb/kustomization.yaml (each can double an object: thirty took kustomize a minute and 5 GB): copy from the original sources instead [render/kustomize]"}, 0},
		{"an OpenShift Template parameter bomb", []string{"tbomb"}, []string{
			"tbomb/t.yaml:9:5: error: template t: parameter substitution writes more than 32 MiB (a large value referenced many times): reference large values less often, or put them in the objects directly [render/template]"}, 0},
		// .invalid never resolves (RFC 2606): offline, whatever the machine.
		{"a remote base while offline", []string{"remote", "--allow-remote"}, []string{
			`remote/kustomization.yaml:2:5: error: kustomize build remote failed: accumulating resources: accumulation err='accumulating resources from 'https://plumb.invalid/org/repo//base?ref=v1'`}, 0},
		{"reference templates calling env, expandenv, getHostByName, readFile", []string{"--reference", "ref"}, []string{
			`ref/env.yaml:6: error: an error occurred while parsing template: env.yaml specified in the config. error: template: env.yaml:6: function "env" not defined (plumb leaves out sprig's env, expandenv, getHostByName: a reference cannot read the runner's environment or the network; write the value into the template or compare it with a regex inline diff function) [compare/reference]`,
			`ref/expandenv.yaml:6: error: an error occurred while parsing template: expandenv.yaml specified in the config. error: template: expandenv.yaml:6: function "expandenv" not defined (plumb leaves out`,
			`ref/host.yaml:6: error: an error occurred while parsing template: host.yaml specified in the config. error: template: host.yaml:6: function "getHostByName" not defined (plumb leaves out`,
			`ref/readfile.yaml:6: error: an error occurred while parsing template: readfile.yaml specified in the config. error: template: readfile.yaml:6: function "readFile" not defined (plumb compare --show-template-functions lists the functions a template may call; a template cannot read files or the environment) [compare/reference]`}, 0},
		{"a reference reading outside its directory", []string{"--reference", "refout"}, []string{
			`refout/metadata.yaml:7:19: error: parts[0].components[0].allOf[0].path: "../../outside/stolen.yaml" is not a file inside the reference directory: paths are relative to it and may not start with / or leave it with .. [compare/reference]`,
			`refout/metadata.yaml:9:5: error: templateFunctionFiles[0]: "/etc/passwd" is not a file inside the reference directory: paths are relative to it and may not start with / or leave it with .. [compare/reference]`}, 0},
		{"a CEL expression over its cost limit", []string{"--checks", "catalog/cost"}, []string{
			"catalog/cost/COST1.yaml:15:14: error: check COST1: expectations[0].expect: the expression was stopped at the CEL cost limit of 5000000 units per evaluation: bound its comprehensions (each nested all/exists/map/filter over a list multiplies the cost) or split it [checks/cost-limit]"}, 0},
		{"a look-around regex in a check", []string{"--checks", "catalog/re"}, []string{
			"catalog/re/LA1.yaml:15:14: error: check LA1: expectations[0].expect: error parsing regexp: invalid or unsupported Perl syntax: `(?!` (RE2 has no look-ahead or look-behind such as (?!...): rewrite the pattern without it, for example by testing the excluded case separately) (the check is not run) [checks/lint]"}, 0},
		{"a look-around regex in an inspection rule", []string{"--rules", "rules/lookaround.yaml"}, []string{
			"rules/lookaround.yaml:3:60: error: conditions[0] (contains): argument regex: invalid regular expression \"(?<=x)y\" (RE2 syntax): invalid named capture: `(?<=x)y` (RE2 has no look-ahead or look-behind such as (?<=...): rewrite the pattern without it, for example by testing the excluded case separately) [rule/invalid]"}, 0},
		{"a look-around regex in a KubeVirt rule", []string{"vm"}, []string{
			"vm/vm.yaml:8: error: m: error parsing regexp: invalid or unsupported Perl syntax: `(?!` [kubevirt/machine]"}, 0},
		{"a rule looping over a huge list", []string{"huge", "--rules", "rules/loop.yaml"}, []string{
			"huge/list.yaml:1:1: error: inspection rule each-item could not be applied to Widget x/big [huge]: conditions[0] (eq) at rules/loop.yaml:3:7: loop {node.spec.items} has 200001 items, over the limit of 10000 iterations; loop over a smaller list or test the list as a whole; the remaining rules were not run on it [rule/each-item]"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--root", ".", "--no-default-checks", "ok"}, c.args...)
			code, stdout, stderr, alloc, elapsed := measured(t, repo, args...)
			// A hostile file of the repository is a finding at its line
			// (exit 1 by --fail-on, as the ok directory's error); a hostile
			// catalog, rules file or reference is plumb's own input, which
			// it cannot use: exit 2.
			want := 1
			for _, w := range c.want {
				if strings.Contains(w, "[compare/reference]") || strings.Contains(w, "[checks/") || strings.Contains(w, "[rule/invalid]") {
					want = 2
				}
			}
			if code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
			for _, w := range append([]string{okFinding}, c.want...) {
				if !strings.Contains(stdout, w) {
					t.Errorf("the report lacks %q", w)
				}
				if strings.Contains(stderr, w) {
					t.Errorf("printed twice, on stderr too: %q", w)
				}
			}
			limit := uint64(hostileMaxAlloc)
			if c.maxAlloc != 0 {
				limit = c.maxAlloc
			}
			if alloc > limit {
				t.Errorf("the run allocated %d MiB, over %d MiB", alloc>>20, limit>>20)
			}
			if t.Failed() {
				t.Logf("plumb %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout, stderr)
			}
			t.Logf("%v, %.1f MiB allocated", elapsed.Round(time.Millisecond), float64(alloc)/(1<<20))
		})
	}
}

// A reference template that loops for hours without printing anything is
// stopped after 2 seconds (its range loops check a deadline), and the other
// inputs are still reported. It runs in the binary, as users run it.
func TestEndlessReferenceTemplate(t *testing.T) {
	repo, _ := hostileRepo(t)
	want := "refloop/loop.yaml:7: error: failed to parse template loop.yaml with empty data: template: loop.yaml:7: execution stopped after 2s: " +
		"the range loop or {{template}} recursion there does not end in time (a reference template must render in well under a second) [compare/reference]"
	p := runBinary(t, procOptions{dir: repo, deadline: time.Minute}, "check", "--root", ".", "--no-default-checks", "--reference", "refloop", "ok")
	if p.code != 2 || !strings.Contains(p.stdout, want) || strings.Contains(p.stderr, want) || !strings.Contains(p.stdout, okFinding) {
		t.Errorf("exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", p.code, want, p.stdout, p.stderr)
	}
	t.Logf("stopped in %v", p.elapsed.Round(time.Millisecond))
}

// The same references through plumb compare, kube-compare's command: the
// reference is an input error (exit 2) at the file and line to change.
func TestHostileReferenceInCompare(t *testing.T) {
	repo, _ := hostileRepo(t)
	for ref, want := range map[string][]string{
		"ref": {
			`error: ref/env.yaml:6: an error occurred while parsing template: env.yaml specified in the config. error: template: env.yaml:6: function "env" not defined (plumb leaves out`,
			`error: ref/expandenv.yaml:6: an error occurred while parsing template: expandenv.yaml specified in the config. error: template: expandenv.yaml:6: function "expandenv" not defined (plumb leaves out`,
			`error: ref/host.yaml:6: an error occurred while parsing template: host.yaml specified in the config. error: template: host.yaml:6: function "getHostByName" not defined (plumb leaves out`,
			`error: ref/readfile.yaml:6: an error occurred while parsing template: readfile.yaml specified in the config. error: template: readfile.yaml:6: function "readFile" not defined (plumb compare --show-template-functions lists`},
		"refout": {
			`error: refout/metadata.yaml:7:19: parts[0].components[0].allOf[0].path: "../../outside/stolen.yaml" is not a file inside the reference directory: paths are relative to it and may not start with / or leave it with ..`,
			`error: refout/metadata.yaml:9:5: templateFunctionFiles[0]: "/etc/passwd" is not a file inside the reference directory: paths are relative to it and may not start with / or leave it with ..`},
	} {
		code, _, stderr, alloc, _ := measured(t, repo, "compare", "-r", ref, "-f", "ok")
		if code != 2 {
			t.Errorf("compare -r %s: exit %d, want 2", ref, code)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("compare -r %s: stderr lacks %q:\n%s", ref, w, stderr)
			}
		}
		if alloc > hostileMaxAlloc {
			t.Errorf("compare -r %s: the run allocated %d MiB", ref, alloc>>20)
		}
	}
}
