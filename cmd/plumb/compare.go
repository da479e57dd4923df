package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/compare"
	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

func newCompareCommand(stdout, stderr io.Writer) *cobra.Command {
	var o compare.CLIOptions
	cmd := &cobra.Command{
		Use:   "compare -r REFERENCE [-f INPUT... | -k DIR]",
		Short: "Compare objects with a reference configuration (kubectl cluster-compare compatible)",
		Long: `compare checks Kubernetes objects against a reference configuration in the
format of kubectl cluster-compare (kube-compare): a metadata.yaml (v1 or v2)
listing Go templates grouped in parts and components. Each input object is
correlated with the best template, the template is rendered with the object,
and any difference is reported as a unified diff; required templates that no
input matched are reported missing.

Flags, output formats and exit codes are those of kubectl cluster-compare, so
its users can switch by changing the command name: 0 no drift, 1 drift (a
difference or a validation issue), 2 an error (and then nothing is written on
stdout).

The objects come from files (-f), a kustomization rendered in-process (-k), or,
with neither, the cluster of the kubeconfig (--kubeconfig, --context): only
the kinds the reference's templates name are read, across all namespaces,
with list calls only. The reference is a local path or an http(s) URL.
-g/--generate-config writes a reference generated from the objects instead.`,
		Example: `  plumb compare -r reference/metadata.yaml -f cluster-crs/ -R
  plumb compare -r reference -f crs.yaml -o json
  plumb compare -r reference -k overlays/prod
  plumb compare -r https://example.com/reference/metadata.yaml --context prod
  plumb compare -r reference -f crs/ -p overrides.yaml
  plumb compare -r reference -f crs/ -o generate-patches \
      --generate-override-for deploy.yaml --override-reason "accepted: tuned replicas"
  plumb compare -g --output-dir new-reference -f must-gather/ -R`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return fmt.Errorf("%w\nSee '%s -h' for help and examples", err, cmd.CommandPath())
			}
			// Template output and messages are repository text: no line of
			// it may run as a workflow command in a GitHub Actions log. The
			// report is buffered (the filter writes line by line); messages
			// are not, so they keep their order.
			bufOut := bufio.NewWriter(stdout)
			out, errOut := workflowcmd.NewInertWriter(bufOut), workflowcmd.NewInertWriter(stderr)
			code := compare.RunCLI(cmd.Context(), o, os.Stdin, out, errOut)
			out.Close()
			bufOut.Flush()
			errOut.Close()
			if code != compare.ExitNoDrift {
				return exitError{code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Reference, "reference", "r", "", "the reference: its metadata.yaml, the directory holding it, or an http(s) URL")
	f.StringSliceVarP(&o.Files, "filename", "f", nil, "files or directories of objects to compare (repeatable, comma-separated; - reads stdin)")
	f.StringVarP(&o.Kustomize, "kustomize", "k", "", "a directory holding a kustomization: its objects are compared (rendered in-process)")
	f.BoolVarP(&o.Recursive, "recursive", "R", false, "walk the directories given with -f recursively")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "without -f or -k: the kubeconfig of the cluster to read (default $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&o.Context, "context", "", "without -f or -k: the kubeconfig context to use (default the current one)")
	f.StringVarP(&o.DiffConfig, "diff-config", "c", "", "diff configuration file (manual correlation pairs)")
	f.StringVarP(&o.Output, "output", "o", "", "output format: json, yaml, junit or generate-patches (default: text)")
	f.BoolVarP(&o.AllResources, "all-resources", "A", false, "list input objects that no template matched")
	f.StringVarP(&o.Overrides, "overrides", "p", "", "user overrides file: patches that accept known deviations")
	f.StringArrayVar(&o.GenerateOverrideFor, "generate-override-for", nil, "with -o generate-patches: a template path to generate overrides for (repeatable)")
	f.StringVar(&o.OverrideReason, "override-reason", "", "with -o generate-patches: the reason recorded in every generated override")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "show every compared object and each overlapping template group")
	f.BoolVar(&o.ShowManagedFields, "show-managed-fields", false, "keep metadata.managedFields in the comparison")
	f.IntVar(&o.Concurrency, "concurrency", 4, "without -f or -k: how many kinds are read from the cluster at once")
	f.BoolVar(&o.ShowTemplateFunctions, "show-template-functions", false, "list the functions templates may call and exit")
	f.BoolVarP(&o.GenerateConfig, "generate-config", "g", false, "write a reference generated from the objects (-f, -k, or the cluster's kinds that -r names) to --output-dir")
	f.StringVar(&o.OutputDir, "output-dir", "", "with -g: the directory the generated reference is written to")
	return cmd
}
