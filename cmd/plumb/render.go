package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
)

func newRenderCommand(stdout, stderr io.Writer) *cobra.Command {
	var fl *config.Flags
	var showOrigin bool
	cmd := &cobra.Command{
		Use:   "render [PATH...] [--show-origin]",
		Short: "Print the objects plumb checks, as YAML",
		Long: `render loads the manifests under each PATH (default ".") exactly as check
does and prints the resulting objects as one YAML stream, with a comment
naming the render target of each. Secret values are printed as <redacted>.
A kustomize target prints exactly as 'kustomize build' prints it.

With --show-origin every line ends with a '# file:line' comment naming the
source line that supplied it: the base resource, the overlay patch that set
the value, the kustomization entry of a transformer (images, replicas,
namespace, namePrefix, labels...) or the generator entry.

Errors and warnings found while reading are printed on stderr. The exit code is 2 when
plumb cannot do what it was asked (a path that does not exist, a
configuration that does not load), 1 when a file of the repository could not
be read or rendered as written, 0 otherwise.`,
		Example: `  plumb render fixtures/demo
  plumb render apps/web/deployment.yaml
  plumb render overlays/prod --show-origin
  plumb render templates/ --param NAME=demo`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl.Paths = args
			cfg, _, err := loadConfig(fl)
			if err != nil {
				return err
			}
			rendered, err := pipeline.Load(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			for _, w := range rendered.Warnings {
				fmt.Fprintf(stderr, "plumb: warning: %s\n", w)
			}
			code := pipeline.ExitOK
			for i := range rendered.Findings {
				f := &rendered.Findings[i]
				if f.Level != finding.Note {
					fmt.Fprintf(stderr, "plumb: %s\n", report.InertLine(f.String()))
				}
				switch {
				case f.ConfigError:
					code = pipeline.ExitError
				case f.InputError && code == pipeline.ExitOK:
					code = pipeline.ExitFindings
				}
			}
			if err := render.Write(stdout, rendered.Render.Targets, render.WriteOptions{ShowOrigin: showOrigin}); err != nil {
				return err
			}
			if code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
	fl = config.BindInputFlags(cmd.Flags())
	cmd.Flags().BoolVar(&showOrigin, "show-origin", false, "end every line with a '# file:line' comment naming the source line that supplied it")
	return cmd
}
