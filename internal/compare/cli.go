package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	// Reference is the metadata.yaml (or its directory), a local path or
	// an http(s) URL.
	Reference string
	// Files are the -f inputs; Kustomize the -k directory. With neither,
	// the objects are read from the cluster (live mode).
	Files     []string
	Kustomize string
	Recursive bool
	// Kubeconfig and Context select the cluster in live mode.
	Kubeconfig, Context string
	DiffConfig          string
	Output              string
	AllResources        bool
	Overrides           string
	GenerateOverrideFor []string
	OverrideReason      string
	Verbose             bool
	ShowManagedFields   bool
	// Concurrency is how many kinds are fetched at once in live mode.
	Concurrency           int
	ShowTemplateFunctions bool
	// GenerateConfig writes a reference generated from the inputs (or the
	// cluster) to OutputDir instead of comparing.
	GenerateConfig bool
	OutputDir      string
	Limits         manifest.Limits
	// HTTPClient fetches an http(s) reference (nil: a default client).
	HTTPClient *http.Client
}

// UsageError is a command-line mistake (exit 2, with a pointer to --help).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Validate checks the flag combination.
func (o *CLIOptions) Validate() error {
	if o.ShowTemplateFunctions {
		return nil
	}
	if len(o.Files) > 0 && o.Kustomize != "" {
		return &UsageError{"give -f/--filename or -k/--kustomize, not both"}
	}
	if o.GenerateConfig {
		return o.validateGenerate()
	}
	if o.OutputDir != "" {
		return &UsageError{"--output-dir only applies with -g/--generate-config"}
	}
	switch o.Output {
	case FormatText, FormatJSON, FormatYAML, FormatJUnit, FormatGeneratePatches:
	default:
		return &UsageError{fmt.Sprintf("invalid output format %q: want json, yaml, junit or generate-patches", o.Output)}
	}
	if o.Reference == "" {
		return &UsageError{"a reference is required: -r/--reference PATH (the metadata.yaml file, its directory, or an http(s) URL)"}
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
	if o.Concurrency < 0 {
		return &UsageError{"--concurrency must be at least 1"}
	}
	return nil
}

func (o *CLIOptions) validateGenerate() error {
	if o.OutputDir == "" {
		return &UsageError{"-g/--generate-config needs --output-dir DIR, the directory the reference is written to"}
	}
	if o.Output != "" || o.DiffConfig != "" || o.Overrides != "" || len(o.GenerateOverrideFor) > 0 {
		return &UsageError{"-g/--generate-config writes a reference; -o, -c, -p and --generate-override-for apply to comparisons"}
	}
	if len(o.Files) == 0 && o.Kustomize == "" && o.Reference == "" {
		return &UsageError{"-g/--generate-config from a cluster needs -r REFERENCE to name the kinds to read (or give the objects with -f or -k)"}
	}
	return nil
}

// cliRun is one run of `plumb compare`: where its messages go, and
// whether an error was met (exit 2, and then nothing on stdout).
type cliRun struct {
	o      CLIOptions
	stderr io.Writer
	failed bool
}

func (c *cliRun) print(ps Problems) {
	for _, p := range ps {
		if p.Warning {
			fmt.Fprintf(c.stderr, "warning: %s\n", p.Error())
		} else {
			c.failed = true
			fmt.Fprintf(c.stderr, "error: %s\n", p.Error())
		}
	}
}

func (c *cliRun) errorf(format string, args ...any) {
	c.failed = true
	fmt.Fprintf(c.stderr, "error: "+format+"\n", args...)
}

// RunCLI runs `plumb compare` and returns its exit code: 0 no drift, 1
// drift (a difference or a validation issue), 2 any error. The report goes
// to stdout; warnings and errors to stderr. As in kube-compare, an error —
// a reference, input or template that fails — writes nothing on stdout, so
// scripts that parse -o json never read a partial report.
func RunCLI(ctx context.Context, o CLIOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	if o.ShowTemplateFunctions {
		for _, n := range FunctionNames() {
			fmt.Fprintln(stdout, n)
		}
		return ExitNoDrift
	}
	c := &cliRun{o: o, stderr: stderr}
	var ref *Reference
	if o.Reference != "" {
		ref = c.loadReference(ctx)
		if ref == nil {
			return ExitError
		}
	}
	if o.GenerateConfig {
		return c.generate(ctx, ref, stdin, stdout)
	}
	opts := Options{ShowManagedFields: o.ShowManagedFields}
	if o.DiffConfig != "" {
		cfg, ps := ReadUserConfig(o.DiffConfig, o.DiffConfig, ref)
		c.print(ps)
		opts.UserConfig = cfg
	}
	if o.Overrides != "" {
		ov, ps := ReadOverrides(o.Overrides, o.Overrides)
		c.print(ps)
		c.print(ov.check(ref))
		opts.Overrides = ov
	}
	if c.failed {
		return ExitError
	}
	objs := c.inputs(ctx, ref, stdin)
	if c.failed {
		return ExitError
	}
	res := ref.Compare(ctx, objs, opts)
	if err := ctx.Err(); err != nil {
		c.errorf("%v", err)
		return ExitError
	}
	for _, p := range res.Errors {
		c.errorf("error occurred while trying to process resources: %s", p.Error())
	}
	if c.failed {
		return ExitError
	}
	report := res.Report(ReportOptions{AllResources: o.AllResources, Verbose: o.Verbose})
	var out bytes.Buffer
	var err error
	switch o.Output {
	case FormatJSON:
		err = report.JSON(&out)
	case FormatYAML:
		err = report.YAML(&out)
	case FormatJUnit:
		err = report.JUnit(&out)
	case FormatGeneratePatches:
		for _, t := range o.GenerateOverrideFor {
			if ref.Template(t) == nil {
				fmt.Fprintf(stderr, "warning: --generate-override-for %s names no template of the reference\n", t)
			}
		}
		err = res.GeneratePatches(&out, o.GenerateOverrideFor, o.OverrideReason)
	default:
		err = report.Text(&out)
	}
	if err != nil {
		c.errorf("writing the report: %v", err)
		return ExitError
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(stderr, "error: writing the report: %v\n", err)
		return ExitError
	}
	switch {
	case o.Output == FormatGeneratePatches:
		return ExitNoDrift
	case report.HasDrift():
		return ExitDrift
	}
	return ExitNoDrift
}

// loadReference loads -r, a local path or an http(s) URL. With --verbose
// the overlapping templates are described one by one.
func (c *cliRun) loadReference(ctx context.Context) *Reference {
	var ref *Reference
	var ps Problems
	if IsURL(c.o.Reference) {
		ref, ps = LoadURL(ctx, c.o.Reference, c.o.HTTPClient)
	} else {
		ref, ps = LoadPath(c.o.Reference, "")
	}
	if ref != nil && c.o.Verbose {
		// The detailed overlap lines replace the summarised warning.
		ps = slices.DeleteFunc(ps, func(p Problem) bool { return strings.Contains(p.Message, "overlapping object definitions") })
		for _, ov := range ref.Overlaps {
			fmt.Fprintf(c.stderr, "warning: %s\n", ov)
		}
	}
	c.print(ps)
	if ref == nil && c.o.Overrides != "" {
		// The overrides file's own problems are reported too (checking its
		// templates needs the reference): every problem in one run.
		_, ps := ReadOverrides(c.o.Overrides, c.o.Overrides)
		c.print(ps)
	}
	return ref
}

// inputs reads the objects to compare: the -f files, the -k
// kustomization, or (with neither) the cluster.
func (c *cliRun) inputs(ctx context.Context, ref *Reference, stdin io.Reader) []*manifest.Object {
	switch {
	case len(c.o.Files) > 0:
		skip := ""
		if ref != nil && !IsURL(c.o.Reference) {
			skip = c.o.Reference
			if st, err := os.Stat(skip); err == nil && !st.IsDir() {
				skip = filepath.Dir(skip)
			}
		}
		objs, ps := ReadInputs(c.o.Files, InputOptions{Recursive: c.o.Recursive, Limits: c.o.Limits, Stdin: stdin, SkipDir: skip})
		c.print(ps)
		return objs
	case c.o.Kustomize != "":
		objs, ps := ReadKustomization(ctx, c.o.Kustomize, c.o.Limits)
		c.print(ps)
		return objs
	}
	if ref == nil {
		return nil
	}
	objs, warnings, err := ReadCluster(ctx, ref.Kinds(), ClusterOptions{Kubeconfig: c.o.Kubeconfig, Context: c.o.Context, Concurrency: c.o.Concurrency})
	for _, w := range warnings {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
	if err != nil {
		c.errorf("%v", err)
	}
	return objs
}

// IsUsageError reports whether err is a command-line mistake.
func IsUsageError(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
