package main

import (
	"strings"
	"testing"
)

// blockPayload is repository text as a multi-line string: in a YAML file it
// is a literal block, and printed as one its lines would start workflow
// commands (the runner trims leading whitespace before it looks).
const blockPayload = "echo hi\n::set-output name=approved::true\n  ::warning::fake\n##[add-mask]leak2\n"

// blockWorkspace plants blockPayload in a plain ConfigMap, in a kustomize
// target, in the unchanged lines of a drift diff (the reference wants a
// label, and takes the script from the input), and in the output of a
// reference template that does not parse.
func blockWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\n  namespace: shop\ndata:\n" +
		"  \"::notice::key\": v\n  script: |\n" + indentLines(blockPayload, "    ")
	writeTree(t, ws, map[string]string{
		"plain/cm.yaml":           cm,
		"kust/kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: k-\n",
		"kust/cm.yaml":            cm,
		"reference/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
		"reference/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\n  namespace: shop\n  labels: {app: x}\n" +
			"data:\n  script: {{ .data.script | toJson }}\n",
		"reference-bad/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
		// Renders the script alone: not a mapping, so kube-compare's error
		// prints the template's output.
		"reference-bad/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scripts\n  namespace: shop\n{{ .data.script }}\n",
	})
	return ws
}

func indentLines(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString(prefix + line)
		}
	}
	return b.String()
}

// TestPrintedYAMLCannotInjectCommands: plumb render and plumb compare
// print repository content line by line, in a run: step straight to the
// step log. No line may run as a command, and the content must still be
// there (quoted or escaped), or the test would prove nothing.
func TestPrintedYAMLCannotInjectCommands(t *testing.T) {
	ws := blockWorkspace(t)
	env := []string{"GITHUB_ACTIONS=true"}
	runs := map[string][]string{
		"render":                                  {"render", "plain", "kust"},
		"render --show-origin":                    {"render", "--show-origin", "plain", "kust"},
		"compare (text)":                          {"compare", "-r", "reference", "-f", "plain"},
		"compare -o yaml":                         {"compare", "-r", "reference", "-f", "plain", "-o", "yaml"},
		"compare -o json":                         {"compare", "-r", "reference", "-f", "plain", "-o", "json"},
		"compare -o junit":                        {"compare", "-r", "reference", "-f", "plain", "-o", "junit"},
		"compare generate-patches":                {"compare", "-r", "reference", "-f", "plain", "-o", "generate-patches", "--generate-override-for", "cm.yaml", "--override-reason", "ok"},
		"compare, a template that does not parse": {"compare", "-r", "reference-bad", "-f", "plain"},
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			p := runBinary(t, procOptions{dir: ws, combined: true, env: env}, args...)
			if p.code == 2 && !strings.Contains(name, "does not parse") {
				t.Errorf("exit 2:\n%s", p.combined)
			}
			assertNoInjectedCommands(t, p.combined, "")
			want := "::set-output name=approved::true"
			if strings.Contains(name, "patches") {
				want = "::notice::key" // the script is equal: not in the patch
			}
			if !strings.Contains(p.combined, want) {
				t.Errorf("the payload is not in the output:\n%s", p.combined)
			}
		})
	}
}
