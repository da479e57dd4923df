// Command gen regenerates internal/schema/data/kubernetes.json, the
// Kubernetes API schema embedded in plumb, from the OpenAPI v3 documents of
// a Kubernetes release (see internal/schema/generate.go). Run it with
// `go generate ./internal/schema`; -spec DIR reads the documents from a
// directory instead of the k8s.io/kubernetes module.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/schema"
)

func main() {
	spec := flag.String("spec", "", "directory of the OpenAPI v3 documents (default: api/openapi-spec/v3 of -module, downloaded with go mod download)")
	module := flag.String("module", "k8s.io/kubernetes@v1.37.2", "the Kubernetes module whose documents to read")
	out := flag.String("o", "internal/schema/data/kubernetes.json", "file to write")
	flag.Parse()
	if *spec == "" {
		dir, err := moduleDir(*module)
		if err != nil {
			fail(err)
		}
		*spec = filepath.Join(dir, "api", "openapi-spec", "v3")
	}
	data, err := schema.Generate(*spec)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fail(err)
	}
}

// moduleDir downloads module (or finds it in the module cache) and returns
// its directory.
func moduleDir(module string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, info.Error)
	}
	return info.Dir, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
