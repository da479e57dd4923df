package helm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helmEngineSHA256 is the digest of pkg/engine/engine.go of the pinned
// Helm module, which engine.go is derived from (modified). When Helm is
// bumped the digest changes: port what changed to engine.go, then update
// the digest and the version in the files' headers and NOTICE.
const helmEngineSHA256 = "30321655dc4abb061ca7ebe7dd8387e315aecb6f97e57a5a33f4497b5b37aeac"

// helmModuleDir is the source directory of the helm.sh/helm/v4 module the
// build uses.
func helmModuleDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: the module's source cannot be found")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "helm.sh/helm/v4").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m helm.sh/helm/v4: %v (%s)", err, out)
	}
	return dir
}

// body is a Go file from its package clause on: what is left once the
// license header and the file's comments above it are set aside.
func body(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("\npackage "))
	if i < 0 {
		t.Fatalf("%s has no package clause", name)
	}
	return data[i+1:]
}

// The copies of Helm's files are Helm's, but for the package name, and
// carry its license header; the file engine.go is derived from is the
// one it was derived from.
func TestHelmCopiesMatchThePinnedModule(t *testing.T) {
	dir := helmModuleDir(t)
	for _, name := range []string{"files.go", "funcs.go"} {
		upstream := bytes.Replace(body(t, filepath.Join(dir, "pkg", "engine", name)), []byte("package engine\n"), []byte("package helm\n"), 1)
		if !bytes.Equal(body(t, name), upstream) {
			t.Errorf("%s is no longer a copy of Helm's pkg/engine/%s (%s): copy it again, changing only the package name", name, name, dir)
		}
	}
	engine, err := os.ReadFile(filepath.Join(dir, "pkg", "engine", "engine.go"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(engine); hex.EncodeToString(sum[:]) != helmEngineSHA256 {
		t.Errorf("Helm's pkg/engine/engine.go (%s) is not the one engine.go was derived from: port its changes, then set helmEngineSHA256 to %x", dir, sum)
	}
	for _, name := range []string{"files.go", "funcs.go", "engine.go"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("/*\nCopyright The Helm Authors.\n\nLicensed under the Apache License, Version 2.0")) {
			t.Errorf("%s does not open with Helm's license header", name)
		}
	}
}
