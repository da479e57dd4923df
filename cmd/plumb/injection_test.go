package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// Workflow-command injection (issue 11, item 4). The runner reads workflow
// commands from every line of a step's stdout and stderr — a line starting
// with "::" (and the legacy "##[" form) — and a bare CR ends a line as an LF
// does. Repository text reaches the step log in file names, object names,
// messages, rule ids and kustomize target names; none of it may start a
// command or break out of one.

// payload is planted in every repository-controlled string: a raw LF and CR
// each followed by a command, the percent-encoded form of a line break, and
// the legacy syntax.
const payload = "x\n::set-output name=approved::true\r::add-mask::leak%0A::warning::fake\n##[add-mask]leak2 ::"

// yamlQuoted is s as a YAML double-quoted scalar.
func yamlQuoted(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

// injectionWorkspace plants the payload everywhere a repository can put
// text.
func injectionWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	q := yamlQuoted(payload)
	files := map[string]string{
		// Object names, in a finding's message (defined twice).
		"apps/web/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + q + "\n  namespace: shop\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + q + "\n  namespace: shop\n",
		// File names: a finding in each, and a YAML syntax error (an input
		// error) in one.
		"apps/files/::warning::evil%0A.yaml":                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n",
		"apps/files/a\n::set-output name=file::1\r::error::x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\n",
		// A kustomize target whose directory name carries the payload, with
		// a var name holding it too: kustomize logs unused var names on the
		// process's stderr.
		"apps/::error::kust\n::set-output name=k::1/kustomization.yaml": "resources: [cm.yaml]\nvars:\n  - name: " + q +
			"\n    objref: {kind: ConfigMap, name: cfg, apiVersion: v1}\n    fieldref: {fieldpath: metadata.name}\n",
		"apps/::error::kust\n::set-output name=k::1/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: shop\n",
		// A VM whose validation rule's message carries the payload.
		"apps/vm/vm.yaml": "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  namespace: shop\n  annotations:\n" +
			"    vm.kubevirt.io/validations: |\n      [{\"name\": \"cores\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"rule\": \"integer\", \"min\": 4,\n" +
			"        \"message\": " + jsonQuoted(payload) + "}]\n" +
			"spec:\n  template:\n    spec:\n      domain:\n        cpu: {cores: 1}\n",
		// The engines' own findings are enough here.
		"policy/plumb.yaml": "checks:\n  default_catalog: false\n",
		// Inspection rules: one whose id is the payload (invalid), one
		// that logs it.
		"policy/rules.yaml": "- uuid: " + q + "\n  actions: [{op: add-trait, args: {name: t}}]\n" +
			"- uuid: logs-it\n  description: " + q + "\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", VirtualMachine]}}]\n" +
			"  actions: [{op: log, args: {level: warning, msg: " + q + "}}]\n",
		// A checks catalog: a failing check whose texts carry the payload,
		// and a file whose id is the payload (a lint error).
		"policy/catalog/EVIL1.yaml": "id: EVIL1\nname: " + q + "\ngroup: " + q + "\ndescription: d\nremediation: " + q + "\nseverity: warning\n" +
			"metadata:\n  target_type: object\n  kind: [ConfigMap]\nfacts:\n  - name: n\n    gatherer: manifest@v1\n    argument: metadata.name\n" +
			"expectations:\n  - name: never\n    expect: facts.n == \"no such name\"\n    failure_message: " + q + "\n",
		"policy/catalog/EVIL2.yaml": "id: " + q + "\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: object\n" +
			"facts:\n  - name: n\n    gatherer: manifest@v1\nexpectations:\n  - name: e\n    expect: \"true\"\n",
		// A reference whose template file name carries the payload: the
		// missing template is a finding naming it.
		"policy/reference/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n" +
			"          - path: " + yamlQuoted(evilTemplate) + "\n",
		"policy/reference/" + evilTemplate: "apiVersion: v1\nkind: Service\nmetadata:\n  name: absent\n  namespace: shop\n",
	}
	writeTree(t, ws, files)
	return ws
}

// evilTemplate is a reference template's file name (no '/').
var evilTemplate = "evil" + strings.ReplaceAll(payload, "/", "_") + ".yaml"

func jsonQuoted(s string) string {
	return fmt.Sprintf("%q", s) // Go's quoting is valid JSON for these characters
}

// commandLine matches what the runner takes for a command: "::name" then
// properties up to the next "::" (v2), or "##[" (v1). The runner trims
// leading whitespace before it looks.
var commandLine = regexp.MustCompile(`^::([A-Za-z-]+)( [^:]*)?::`)

// assertNoInjectedCommands reads a step log as the runner does and fails
// on any command that is not one plumb means to print: the first line's
// add-mask of the token, the report group inside stop-commands, and
// annotations whose properties are escaped (no raw ':' before the data).
func assertNoInjectedCommands(t *testing.T, log, token string) {
	t.Helper()
	allowed := map[string]bool{"group": true, "endgroup": true, "error": true, "warning": true, "notice": true, "debug": true}
	lines := regexp.MustCompile(`\r\n|\r|\n`).Split(log, -1)
	stopped := ""
	for i, raw := range lines {
		line := strings.TrimLeft(raw, " \t")
		if stopped != "" {
			if line == "::"+stopped+"::" {
				stopped = ""
			}
			continue
		}
		if strings.HasPrefix(line, "##[") {
			t.Errorf("line %d starts a legacy command: %q", i+1, raw)
			continue
		}
		if !strings.HasPrefix(line, "::") {
			continue
		}
		m := commandLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %d is a malformed command the runner may still read: %q", i+1, raw)
			continue
		}
		switch name := m[1]; {
		case name == "add-mask":
			if i != 0 || line != "::add-mask::"+token {
				t.Errorf("line %d adds a mask: %q", i+1, raw)
			}
		case name == "stop-commands":
			stopped = strings.TrimPrefix(line, "::stop-commands::")
			if !regexp.MustCompile(`^plumb-[0-9a-f]{32}$`).MatchString(stopped) {
				t.Errorf("line %d: stop-commands with a guessable token: %q", i+1, raw)
			}
		case !allowed[name]:
			t.Errorf("line %d is an injected %s command: %q", i+1, name, raw)
		}
	}
	if stopped != "" {
		t.Error("stop-commands was never ended")
	}
}

// TestWorkflowCommandsCannotBeInjected runs the action on a repository that
// plants the payload everywhere — the manifests and inspection rules, then
// the checks catalog and the reference (two steps: GitHub shows 10 error
// annotations per step) —, then the action's own error path and the
// fork-safe poster on a report the fork wrote, and reads each step log as
// the runner does.
func TestWorkflowCommandsCannotBeInjected(t *testing.T) {
	ws := injectionWorkspace(t)
	step := newActionStep(t, ws, []fakegithub.File{
		{Filename: "apps/web/cm.yaml", Status: "added", Patch: "@@ -0,0 +1,11 @@\n" + strings.Repeat("+x\n", 10) + "+x"},
	})
	step.env["INPUT_CONFIG"] = "policy/plumb.yaml"

	// Manifests, kustomize targets, KubeVirt rules, inspection rules.
	step.env["INPUT_PATHS"] = "apps"
	step.env["INPUT_RULES"] = "policy/rules.yaml"
	manifests := step.run()
	if manifests.code != 2 {
		t.Errorf("exit %d, want 2 (a YAML syntax error, an invalid rule)\n%s", manifests.code, manifests.combined)
	}
	assertNoInjectedCommands(t, manifests.combined, "write-token")
	// The payload did reach the log, escaped: annotations about object
	// names, file names, target names and messages.
	for _, want := range []string{
		"%0A::set-output name=approved::true%0D::add-mask::leak%250A::warning::fake%0A##[add-mask]leak2 ::",
		"file=apps/files/a%0A%3A%3Aset-output name=file%3A%3A1%0D%3A%3Aerror%3A%3Ax.yaml,",
		"file=apps/files/%3A%3Awarning%3A%3Aevil%250A.yaml,",
		"file=apps/%3A%3Aerror%3A%3Akust%0A%3A%3Aset-output name=k%3A%3A1/kustomization.yaml,",
	} {
		if !strings.Contains(manifests.combined, want) {
			t.Errorf("the step log lacks %q (the payload must reach it, escaped):\n%s", want, manifests.combined)
		}
	}
	assertAnnotated(t, manifests.combined, "manifest/duplicate-object", "manifest/yaml-syntax", "manifest/missing-name",
		"kubevirt/cores", "rule/invalid", "rule/logs-it", "render/deprecated")

	// Checks catalogs and references.
	step.env["INPUT_PATHS"] = "apps/web"
	step.env["INPUT_RULES"] = ""
	step.env["INPUT_CHECKS"] = "policy/catalog"
	step.env["INPUT_REFERENCE"] = "policy/reference"
	catalogs := step.run()
	if catalogs.code != 2 {
		t.Errorf("exit %d, want 2 (a broken check)\n%s", catalogs.code, catalogs.combined)
	}
	assertNoInjectedCommands(t, catalogs.combined, "write-token")
	assertAnnotated(t, catalogs.combined, "check/EVIL1", "checks/lint", "compare/missing")

	// The action's own error lines: a configuration whose key is the
	// payload.
	writeTree(t, ws, map[string]string{"policy/bad.plumb.yaml": yamlQuoted(payload) + ": 1\n"})
	step.env["INPUT_CONFIG"] = "policy/bad.plumb.yaml"
	bad := step.run()
	if bad.code != 2 || !strings.Contains(bad.combined, "::error title=plumb::") {
		t.Errorf("a bad configuration: exit %d\n%s", bad.code, bad.combined)
	}
	assertNoInjectedCommands(t, bad.combined, "write-token")

	// plumb check in a run: step: the text report and stderr go straight
	// to the step log, without stop-commands.
	for _, format := range []string{"text", "annotations"} {
		cli := runBinary(t, procOptions{dir: ws, combined: true, env: []string{"GITHUB_ACTIONS=true"}}, "check", "--root", ".",
			"--config", "policy/plumb.yaml", "--rules", "policy/rules.yaml", "--checks", "policy/catalog", "--format", format, "apps")
		if cli.code != 2 {
			t.Errorf("plumb check --format %s: exit %d\n%s", format, cli.code, cli.combined)
		}
		assertNoInjectedCommands(t, cli.combined, "")
		if !strings.Contains(cli.combined, "::set-output name=approved::true") {
			t.Errorf("plumb check --format %s: the payload is not in the output:\n%s", format, cli.combined)
		}
	}

	// The fork-safe poster reads a report the fork wrote: every string in
	// it is the fork's. It is the manifests step's report.
	artifact := t.TempDir()
	writeTree(t, artifact, map[string]string{"plumb-report.json": manifests.report})
	event, err := os.ReadFile(step.env["GITHUB_EVENT_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, artifact, map[string]string{"pr-event.json": string(event)})
	writeTree(t, step.runner, map[string]string{"workflow_run.json": fmt.Sprintf(
		`{"action": "completed", "workflow_run": {"id": 41, "event": "pull_request", "head_sha": %q, "pull_requests": []}}`, actionHeadSHA)})
	for k, v := range map[string]string{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": filepath.Join(step.runner, "workflow_run.json"),
		"GITHUB_WORKSPACE": artifact, "INPUT_POST-REPORT": "plumb-report.json", "INPUT_POST-EVENT": "pr-event.json"} {
		step.env[k] = v
	}
	step.ws = artifact
	post := step.run()
	if post.code != 0 {
		t.Errorf("the poster: exit %d\n%s", post.code, post.combined)
	}
	assertNoInjectedCommands(t, post.combined, "write-token")
	assertAnnotated(t, post.combined, "manifest/duplicate-object", "kubevirt/cores", "rule/logs-it")
}

// assertAnnotated fails unless the log has an annotation of each rule: the
// payload in them was exercised.
func assertAnnotated(t *testing.T, log string, rules ...string) {
	t.Helper()
	for _, rule := range rules {
		if !strings.Contains(log, "("+rule+"),file=") {
			t.Errorf("no annotation of %s:\n%s", rule, log)
		}
	}
}
