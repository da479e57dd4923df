// Command gen regenerates internal/schema/data/kubernetes.json, the
// Kubernetes API schema embedded in plumb, from the OpenAPI v3 documents of
// a Kubernetes release (see internal/schema/generate.go):
//
//	go run ./internal/schema/gen -spec "$(go mod download -json k8s.io/kubernetes@v1.37.2 | jq -r .Dir)/api/openapi-spec/v3"
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/plumb-ci/plumb/internal/schema"
)

func main() {
	spec := flag.String("spec", "", "directory of the OpenAPI v3 documents (api/openapi-spec/v3 of k8s.io/kubernetes)")
	out := flag.String("o", "internal/schema/data/kubernetes.json", "file to write")
	flag.Parse()
	if *spec == "" {
		fmt.Fprintln(os.Stderr, "gen: -spec is required")
		os.Exit(2)
	}
	data, err := schema.Generate(*spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
