package compare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Exit codes of `plumb compare`, as kubectl cluster-compare's.
const (
	ExitNoDrift = 0
	ExitDrift   = 1
	ExitError   = 2
)

// Output formats of `plumb compare -o`.
const (
	FormatText            = ""
	FormatJSON            = "json"
	FormatYAML            = "yaml"
	FormatJUnit           = "junit"
	FormatGeneratePatches = "generate-patches"
)

// CLIOptions are the flags of `plumb compare`.
type CLIOptions struct {
	Reference             string
	Files                 []string
	Recursive             bool
	DiffConfig            string
	Output                string
	AllResources          bool
	Overrides             string
	GenerateOverrideFor   []string
	OverrideReason        string
	Verbose               bool
	ShowManagedFields     bool
	Concurrency           int
	ShowTemplateFunctions bool
	Limits                manifest.Limits
}

// UsageError is a command-line mistake (exit 2, with a pointer to --help).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Validate checks the flag combination.
func (o *CLIOptions) Validate() error {
	if o.ShowTemplateFunctions {
		return nil
	}
	switch o.Output {
	case FormatText, FormatJSON, FormatYAML, FormatJUnit, FormatGeneratePatches:
	default:
		return &UsageError{fmt.Sprintf("invalid output format %q: want json, yaml, junit or generate-patches", o.Output)}
	}
	if o.Reference == "" {
		return &UsageError{"a reference is required: -r/--reference PATH (the metadata.yaml file, or its directory)"}
	}
	if len(o.Files) == 0 {
		return &UsageError{"input files are required: -f/--filename PATH (plumb compares files; it does not connect to a cluster)"}
	}
	if o.Output == FormatGeneratePatches {
		if len(o.GenerateOverrideFor) == 0 {
			return &UsageError{"-o generate-patches needs --generate-override-for TEMPLATE (repeatable)"}
		}
		if strings.TrimSpace(o.OverrideReason) == "" {
			return &UsageError{"-o generate-patches needs --override-reason TEXT"}
		}
	} else if len(o.GenerateOverrideFor) > 0 || o.OverrideReason != "" {
		return &UsageError{"--generate-override-for and --override-reason only apply with -o generate-patches"}
	}
	return nil
}

// RunCLI runs `plumb compare` and returns its exit code: 0 no drift, 1
// drift (a difference or a validation issue), 2 any error. The report goes
// to stdout; warnings and errors to stderr. Unlike kube-compare, a template
// that fails on one input does not suppress the report: the report is
// written, the failures are printed, and the exit code is 2.
func RunCLI(ctx context.Context, o CLIOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	if o.ShowTemplateFunctions {
		for _, n := range FunctionNames() {
			fmt.Fprintln(stdout, n)
		}
		return ExitNoDrift
	}
	failed := false
	printProblems := func(ps Problems) {
		for _, p := range ps {
			if p.Warning {
				if !o.Verbose && strings.HasPrefix(p.Message, "Skipping:") {
					continue
				}
				fmt.Fprintf(stderr, "warning: %s\n", p.Error())
			} else {
				failed = true
				fmt.Fprintf(stderr, "error: %s\n", p.Error())
			}
		}
	}
	ref, ps := LoadPath(o.Reference, "")
	if ref != nil && o.Verbose {
		// The detailed overlap lines replace the summarised warning.
		ps = slices.DeleteFunc(ps, func(p Problem) bool { return strings.Contains(p.Message, "overlapping object definitions") })
		for _, ov := range ref.Overlaps {
			fmt.Fprintf(stderr, "warning: %s\n", ov)
		}
	}
	printProblems(ps)
	if ref == nil {
		// The overrides file's own problems are reported too (checking its
		// templates needs the reference): every problem in one run.
		if o.Overrides != "" {
			_, ps := ReadOverrides(o.Overrides, o.Overrides)
			printProblems(ps)
		}
		return ExitError
	}
	opts := Options{ShowManagedFields: o.ShowManagedFields, Workers: o.Concurrency}
	if o.DiffConfig != "" {
		cfg, ps := ReadUserConfig(o.DiffConfig, o.DiffConfig, ref)
		printProblems(ps)
		opts.UserConfig = cfg
	}
	if o.Overrides != "" {
		ov, ps := ReadOverrides(o.Overrides, o.Overrides)
		printProblems(ps)
		printProblems(ov.check(ref))
		opts.Overrides = ov
	}
	if failed {
		return ExitError
	}
	refDir := o.Reference
	if st, err := os.Stat(refDir); err == nil && !st.IsDir() {
		refDir = filepath.Dir(refDir)
	}
	objs, ps := ReadInputs(o.Files, InputOptions{Recursive: o.Recursive, Limits: o.Limits, Stdin: stdin, SkipDir: refDir})
	printProblems(ps)

	res := ref.Compare(ctx, objs, opts)
	if err := ctx.Err(); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return ExitError
	}
	for _, p := range res.Errors {
		failed = true
		fmt.Fprintf(stderr, "error: error occurred while trying to process resources: %s\n", p.Error())
	}
	report := res.Report(ReportOptions{AllResources: o.AllResources, Verbose: o.Verbose})
	var err error
	switch o.Output {
	case FormatJSON:
		err = report.JSON(stdout)
	case FormatYAML:
		err = report.YAML(stdout)
	case FormatJUnit:
		err = report.JUnit(stdout)
	case FormatGeneratePatches:
		for _, t := range o.GenerateOverrideFor {
			if ref.Template(t) == nil {
				fmt.Fprintf(stderr, "warning: --generate-override-for %s names no template of the reference\n", t)
			}
		}
		err = res.GeneratePatches(stdout, o.GenerateOverrideFor, o.OverrideReason)
	default:
		err = report.Text(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: writing the report: %v\n", err)
		return ExitError
	}
	switch {
	case failed:
		return ExitError
	case o.Output == FormatGeneratePatches:
		return ExitNoDrift
	case report.HasDrift():
		return ExitDrift
	}
	return ExitNoDrift
}

// IsUsageError reports whether err is a command-line mistake.
func IsUsageError(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
