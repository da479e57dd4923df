package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestBadInput: every kind of broken kustomization or template is an input
// error naming the file, line and column of the entry to fix; the good
// target is still rendered.
func TestBadInput(t *testing.T) {
	res := renderRepo(t, "testdata/bad", Options{})
	cases := []struct {
		rule, at, contains string
	}{
		{RuleKustomize, "missing/kustomization.yaml:3:5", `resources[1]: resource "nothere.yaml" not found`},
		{RuleKustomize, "cycle/b/kustomization.yaml:2:5", "cyclic kustomization: cycle/a → cycle/b → cycle/a"},
		{RuleKustomize, "escape/kustomization.yaml:2:5", `"../../../../outside.yaml" leads outside the repository`},
		{RuleKustomize, "absolute/kustomization.yaml:2:5", `"/etc/passwd" is an absolute path`},
		{RuleRemote, "remote/kustomization.yaml:2:5", "target not rendered, because plumb builds only from the repository; pass --allow-remote"},
		{RuleKustomize, "badpatch/kustomization.yaml:4:5", `invalid patch: badpatch/patch.yaml:4:3: unknown operation "frobnicate"`},
		{RuleKustomize, "nomatch/kustomization.yaml:4:5", "no resource matches strategic merge patch"},
		{RuleRemote, "helm/kustomization.yaml:2:5", "helmCharts[0]: chart redis is not vendored in helm/charts: target not rendered, because plumb renders charts offline, from the repository. Vendor it (`helm pull redis --repo https://charts.bitnami.com/bitnami --untar --untardir helm/charts`"},
		{RuleUnsupported, "plugin/kustomization.yaml:4:3", "transformers[0]: annotator.yaml is a container KRM function: not supported, plumb does not run kustomize plugins, so the target is not rendered"},
		{RuleUnsupported, "execfn/kustomization.yaml:4:3", "generators[0]: gen.yaml is an exec KRM function: not supported"},
		// Read through a symlink that leads out of the kustomization's
		// directory: kustomize build refuses it.
		{RuleKustomize, "symlink/app/kustomization.yaml:2:3", `resources[0]: "cm.yaml" is a symlink (or lies under one) that leads outside the kustomization's directory`},
		{RuleKustomize, "unknownfield/kustomization.yaml:3:1", `unknown field "namePrefx"`},
		{RuleKustomize, "compres/kustomization.yaml:2:5", `"comp" is a Component`},
		{RuleKustomize, "twofiles/kustomization.yml:1:1", "twofiles has several kustomization files"},
		{RuleKustomize, "jsonop/kustomization.yaml:4:5", "patches[0]: JSON patch operation 1 at jsonop/ops.yaml:4:3 cannot be applied: error in remove for path: '/spec/paused'"},
		{RuleKustomize, "jsontest/kustomization.yaml:4:5", "patches[0]: JSON patch operation 0 at jsontest/kustomization.yaml:7:9 cannot be applied: testing value /spec/replicas failed"},
		// A shared base's patch fails in every overlay: reported once, at the base.
		{RuleKustomize, "sharedop/base/kustomization.yaml:4:5", "patchesJson6902[0]: JSON patch operation 0 at sharedop/base/ops.yaml:1:3 cannot be applied: error in move for path: 'strategy': Unable to remove nonexistent key: strategy"},
		{RuleKustomize, "mergegen/kustomization.yaml:4:5", `kustomize build mergegen failed: merging from generator: id ConfigMap "settings" does not exist; cannot merge or replace (behavior: merge and replace change an object of the same name from a base`},
		// Errors krusty names only by content, at the entry that holds it.
		// A malformed literal, at its entry, not quoted (it may be a
		// Secret's).
		{RuleKustomize, "literal/kustomization.yaml:5:9", "configMapGenerator[0].literals[1]: not KEY=VALUE"},
		// An error krusty meets in a base shared by two overlays: once, in
		// the base's terms, without krusty's accumulation wrapping.
		{RuleKustomize, "sharedbase/base/kustomization.yaml:4:9", "configMapGenerator[0].literals[0]: not KEY=VALUE"},
		{RuleKustomize, "dupgen/kustomization.yaml:4:5", `id ConfigMap "settings" exists; can not use behavior`},
		{RuleKustomize, "replicasname/kustomization.yaml:6:5", "resource with name api does not match a config"},
		{RuleKustomize, "replacement/kustomization.yaml:4:5", "nothing selected by ConfigMap"},
		{RuleKustomize, "emptypatch/kustomization.yaml:4:5", "patches[0]: a patch entry needs path (a patch file) or patch (the patch inline)"},
		{RuleKustomize, "emptyentry/kustomization.yaml:3:4", "resources[1]: the entry is empty"},
		{RuleKustomize, "inlinesyntax/kustomization.yaml:4:5", "patches[0]: invalid patch: the inline patch is not valid YAML: did not find expected ',' or ']' (line 6 of the patch)"},
		{RuleKustomize, "inlineempty/kustomization.yaml:4:5", "patches[0]: invalid patch: the patch is empty"},
		{RuleKustomize, "nonamegen/kustomization.yaml:2:5", "a configmap must have a name"},
		{RuleKustomize, "sortorder/kustomization.yaml:4:3", "the field 'sortOptions.order' must be one of [fifo, legacy]"},
		// A value of the wrong type, at its key.
		{RuleKustomize, "wrongtype/kustomization.yaml:2:1", "resources: the value is a string, kustomize wants a list of strings"},
		{RuleKustomize, "wrongtype2/kustomization.yaml:4:5", "patches.path: the value is a list, kustomize wants a string"},
		// A required parameter without a value: checked with a placeholder,
		// one warning at the parameter.
		{RuleTemplatePlaceholder, "required/template.yaml:13:5", `parameter SSO_URL is required and has no value, so the template was checked with "plumb-required-sso-url" in its place`},
		{RuleTemplate, "templates/template.yaml:15:5", "range must be within [1-255] characters"},
	}
	found := map[int]bool{}
	for _, p := range res.Problems {
		if !p.Input && p.Level != "warning" {
			continue
		}
		// krusty prints some values through pointers; no address may reach
		// a report (reports are byte-identical from run to run).
		if strings.Contains(p.Message, "0x") {
			t.Errorf("a memory address in %q", p.Message)
		}
		matched := false
		for i, c := range cases {
			if p.Rule == c.rule && manifest.FormatLocation(p.Location) == c.at && strings.Contains(p.Message, c.contains) {
				found[i], matched = true, true
			}
		}
		if !matched {
			t.Errorf("unexpected problem: %s [%s]", p.Error(), p.Rule)
		}
	}
	for i, c := range cases {
		if !found[i] {
			t.Errorf("missing problem at %s: %s", c.at, c.contains)
		}
	}
	for _, dir := range []string{"sharedop/", "sharedbase/"} {
		shared := 0
		for _, p := range res.Problems {
			if p.Rule == RuleKustomize && strings.HasPrefix(p.Location.File, dir) {
				shared++
				if strings.Contains(p.Message, "accumulat") {
					t.Errorf("krusty's wrapping left in %q", p.Message)
				}
			}
		}
		if shared != 1 {
			t.Errorf("the shared base's error in %s is reported %d times, want once", dir, shared)
		}
	}
	// The good target renders; the failed template is kept (engines read
	// its annotations) without objects.
	for _, tg := range res.Targets {
		switch {
		case tg.Name == "good" && len(tg.Objects) == 1:
		case tg.Name == "templates" && len(tg.Objects) == 0 && len(tg.Templates) == 1:
		case tg.Name == "required" && len(tg.Objects) == 1 && tg.Objects[0].Content["data"].(map[string]any)["url"] == "plumb-required-sso-url":
		case tg.Name == "symlink/app (plain)" || tg.Name == "symlink/shared":
			// The files of a kustomization that cannot be built, checked
			// as plain files.
		default:
			t.Errorf("target %s with %d objects", tg.Name, len(tg.Objects))
		}
	}
	if len(res.Targets) != 5 {
		t.Errorf("%d targets, want good, templates, required and the symlink's plain files", len(res.Targets))
	}
}

// TestUnknownTemplateParameter: a parameter given for a template that does
// not declare it is refused, as oc process refuses it.
func TestUnknownTemplateParameter(t *testing.T) {
	res := renderRepo(t, "testdata/repo", Options{
		Params: TemplateParams{
			Global:      map[string]string{"NAME": "demo", "NAMEE": "typo"},
			PerTemplate: map[string]map[string]string{"web-template": {"REPLICA": "3"}, "no-such-template": {"X": "1"}},
		},
		ParamsAt: manifest.Location{File: ".plumb.yaml"},
	}, "apps/templates")
	want := map[string]string{
		"unknown Template parameter NAMEE":                     "apps/templates/web-template.yaml:36:1",
		"unknown parameter REPLICA (given in template_params)": "apps/templates/web-template.yaml:36:1",
		"no processed Template is named no-such-template":      ".plumb.yaml",
	}
	for _, p := range res.Problems {
		for msg, at := range want {
			if strings.Contains(p.Message, msg) {
				if got := manifest.FormatLocation(p.Location); got != at || !p.Input || p.Rule != RuleTemplate {
					t.Errorf("%s: at %s (input %v), want %s", msg, got, p.Input, at)
				}
				delete(want, msg)
			}
		}
	}
	for msg := range want {
		t.Errorf("missing problem %q", msg)
	}
}

// TestSymlinkOutOfRepository: a resource that is a symlink pointing outside
// the repository is refused, never read.
func TestSymlinkOutOfRepository(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	must(t, os.WriteFile(outside, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "app"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "app/kustomization.yaml"), []byte("resources:\n  - link.yaml\n  - linkdir\n"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(dir, "app/link.yaml")))
	must(t, os.Symlink(filepath.Dir(outside), filepath.Join(dir, "app/linkdir")))
	res := renderRepo(t, dir, Options{}, "app/kustomization.yaml")
	var msgs []string
	for _, p := range res.Problems {
		msgs = append(msgs, p.Error())
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{
		`app/kustomization.yaml:2:5: resources[0]: resource "link.yaml" leads outside the repository (through a symlink)`,
		`app/kustomization.yaml:3:5: resources[1]: resource "linkdir" leads outside the repository (through a symlink)`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %q in\n%s", want, joined)
		}
	}
	if len(res.Objects()) != 0 {
		t.Errorf("objects rendered from outside the repository: %v", res.Objects())
	}
}

// TestKrustyCannotReadOutside: even without plumb's own checks, the file
// system krusty reads refuses paths outside the repository.
func TestKrustyCannotReadOutside(t *testing.T) {
	root, err := os.OpenRoot("testdata/repo")
	must(t, err)
	defer root.Close()
	kfs := &kustomizeFS{files: newFileCache(root.FS(), manifest.Limits{})}
	for _, p := range []string{"/etc/passwd", virtualRoot + "/../etc/passwd", "/plumb-repo-other/x"} {
		if _, err := kfs.ReadFile(p); err == nil {
			t.Errorf("read %s", p)
		}
		if kfs.Exists(p) {
			t.Errorf("%s exists", p)
		}
	}
	if _, err := kfs.ReadFile(virtualRoot + "/base/service.yaml"); err != nil {
		t.Errorf("repository file: %v", err)
	}
	if err := kfs.WriteFile(virtualRoot+"/base/service.yaml", nil); err == nil {
		t.Error("write allowed")
	}
}

// TestRemoteAllowedButOffline: with --allow-remote, a remote base that
// cannot be fetched is still a clear error at its entry.
func TestRemoteAllowedButOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("tries the network")
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"),
		[]byte("resources:\n  - https://plumb.invalid/base.yaml\n"), 0o644))
	res := renderRepo(t, dir, Options{AllowRemote: true})
	if len(res.Problems) != 1 {
		t.Fatalf("problems %v", res.Problems)
	}
	p := res.Problems[0]
	if manifest.FormatLocation(p.Location) != "kustomization.yaml:2:5" || !p.Input || !strings.Contains(p.Message, "plumb.invalid") {
		t.Errorf("problem %s", p.Error())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestBrokenKustomizationYAML: a kustomization the loader cannot parse is
// reported once (by the loader, at its line); its target does not render
// and its files are not taken for plain objects.
func TestBrokenKustomizationYAML(t *testing.T) {
	root, err := os.OpenRoot("testdata/bad")
	must(t, err)
	defer root.Close()
	set := manifest.Load(root.FS(), []string{"syntax"}, manifest.LoadOptions{})
	if len(set.Problems) != 1 || set.Problems[0].Rule != manifest.RuleYAMLSyntax {
		t.Fatalf("loader problems %v", set.Problems)
	}
	res := Render(t.Context(), root.FS(), set, Options{})
	if len(res.Problems) != 0 || len(res.Targets) != 0 {
		t.Errorf("problems %v, targets %v", res.Problems, res.Targets)
	}
}

// A remote base's clone is read as content too: with --allow-remote,
// krusty clones it with git into a temporary directory, and a link in it
// may not lead out of the clone (to the runner's /etc/passwd, or the
// checkout's .git/config), nor a file of it be under its .git.
func TestRemoteCloneIsReadAsContent(t *testing.T) {
	remote := gittest.New(t)
	remote.Write(map[string]string{
		"git/kustomization.yaml":  "configMapGenerator:\n  - name: g\n    files: [cfg=../.git/config]\n",
		"link/kustomization.yaml": "configMapGenerator:\n  - name: l\n    files: [pw=pw]\n",
		"ok/kustomization.yaml":   "configMapGenerator:\n  - name: ok\n    literals: [a=b]\n",
	})
	remote.Symlink("/etc/passwd", "link/pw")
	remote.Commit("bases")
	dir := t.TempDir()
	for _, base := range []string{"git", "link", "ok"} {
		must(t, os.MkdirAll(filepath.Join(dir, base), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, base, "kustomization.yaml"),
			[]byte("resources:\n  - file://"+remote.Dir+"//"+base+"\n"), 0o644))
	}
	res := renderRepo(t, dir, Options{AllowRemote: true})
	why := map[string]string{}
	for _, p := range res.Problems {
		why[p.Location.File] = p.Message
	}
	if m := why["git/kustomization.yaml"]; !strings.Contains(m, "reads .git/config: files inside .git are not repository content") {
		t.Errorf("a file of the clone's .git: %q", m)
	}
	if m := why["link/kustomization.yaml"]; !strings.Contains(m, "pw: the path leaves the repository") || strings.Contains(m, "root:") {
		t.Errorf("a link out of the clone: %q", m)
	}
	if m, ok := why["ok/kustomization.yaml"]; ok {
		t.Errorf("the clone's own files: %q", m)
	}
	object(t, res, "ok", "ConfigMap", "ok-4h2mbtbbt6")
}
