package render

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"testing"
)

// Kustomize logs an unused var's name through the standard logger, which
// writes to the stderr the process started with; on a GitHub runner a name
// holding a line break and "::set-output" would be a workflow command.
// Nothing krusty logs while plumb renders reaches the logger's writer, and
// the writer is restored afterwards.
func TestKrustyLogsAreDiscarded(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [cm.yaml]\nvars:\n"+
		"  - name: \"x\\n::set-output name=approved::true\"\n    objref: {kind: ConfigMap, name: cfg, apiVersion: v1}\n"+
		"    fieldref: {fieldpath: metadata.name}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"), 0o644))
	var logged bytes.Buffer
	saved := log.Writer()
	log.SetOutput(&logged)
	defer log.SetOutput(saved)

	res := renderRepo(t, dir, Options{})
	if len(res.Objects()) != 1 {
		t.Fatalf("objects %v, problems %v", res.Objects(), res.Problems)
	}
	if logged.Len() != 0 {
		t.Errorf("krusty logged through the standard logger: %q", logged.String())
	}
	if log.Writer() != &logged {
		t.Error("the logger's writer was not restored")
	}
}
