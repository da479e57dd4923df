package render

import (
	"bufio"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// WriteYAML prints the targets' objects as a YAML stream, one comment line
// naming each target. Secret values are redacted: plumb never prints them.
func WriteYAML(w io.Writer, targets []*Target) error {
	bw := bufio.NewWriter(w)
	first := true
	for _, t := range targets {
		for _, o := range t.Objects {
			if !first {
				bw.WriteString("---\n")
			}
			if first || o == t.Objects[0] {
				fmt.Fprintf(bw, "# target: %s\n", t.Name)
			}
			first = false
			if err := encodeObject(bw, o); err != nil {
				return fmt.Errorf("%s: %w", o.ID, err)
			}
		}
	}
	return bw.Flush()
}

func encodeObject(w io.Writer, o *manifest.Object) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	var err error
	if o.Node != nil {
		err = enc.Encode(manifest.MaskSecretNode(o.Content, o.Node))
	} else {
		err = enc.Encode(manifest.MaskSecretContent(o.Content))
	}
	if err != nil {
		return err
	}
	return enc.Close()
}
