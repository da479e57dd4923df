package action

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/config"
)

// checkInput maps one action input onto a flag of `plumb check`, so the
// action accepts what the CLI accepts and nothing else. Adding an input
// that mirrors a new flag is one line here (and one in action.yml).
type checkInput struct {
	Input string
	// Flag is the `plumb check` flag the input sets; "" for the
	// positional PATH arguments.
	Flag string
	// List inputs take one value per line (blank lines and lines starting
	// with # are skipped); each sets the flag once.
	List bool
}

// checkInputs are the inputs that mirror `plumb check`.
var checkInputs = []checkInput{
	{Input: "paths", List: true},
	{Input: "config", Flag: "config"},
	{Input: "checks", Flag: "checks", List: true},
	{Input: "rules", Flag: "rules", List: true},
	{Input: "reference", Flag: "reference"},
	{Input: "env", Flag: "env", List: true},
	{Input: "fail-on", Flag: "fail-on"},
	{Input: "base-ref", Flag: "base-ref"},
	{Input: "values", Flag: "values", List: true},
	{Input: "set", Flag: "set", List: true},
	{Input: "set-string", Flag: "set-string", List: true},
	{Input: "release-name", Flag: "release-name"},
	{Input: "namespace", Flag: "namespace"},
	{Input: "kubernetes-version", Flag: "kubernetes-version"},
	{Input: "crds", Flag: "crds", List: true},
	{Input: "policies", Flag: "policies", List: true},
	{Input: "cache-dir", Flag: "cache-dir"},
	{Input: "remote-hosts", Flag: "remote-host", List: true},
	{Input: "checks-detail", Flag: "checks-detail"},
}

// bindCheckInputs builds `plumb check`'s flags from the inputs (every
// input in checkInputs names an existing flag: TestEveryCheckInputIsACheckFlag).
func bindCheckInputs(in inputs) (*config.Flags, error) {
	fs := pflag.NewFlagSet("action", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fs)
	var errs []string
	for _, ci := range checkInputs {
		raw, _ := in.get(ci.Input)
		if strings.TrimSpace(raw) == "" {
			continue
		}
		values := []string{strings.TrimSpace(raw)}
		if ci.List {
			values = splitList(raw)
		}
		if ci.Flag == "" {
			fl.Paths = append(fl.Paths, values...)
			continue
		}
		for _, v := range values {
			if err := fs.Set(ci.Flag, v); err != nil {
				errs = append(errs, fmt.Sprintf("input %q: %v", ci.Input, err))
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return fl, nil
}

// splitList reads a multi-line input.
func splitList(raw string) []string {
	var out []string
	for _, line := range strings.Split(raw, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// inputs reads INPUT_* variables the way the runner sets them: the name
// upper-cased, spaces as underscores, hyphens kept (INPUT_FAIL-ON).
type inputs struct {
	lookup func(string) (string, bool)
}

func inputEnvName(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// get returns an input and whether it is set at all (the runner sets every
// input action.yml declares, with its default; an input set to "" turns an
// output file off).
func (in inputs) get(name string) (string, bool) {
	v, ok := in.lookup(inputEnvName(name))
	return strings.TrimSpace(v), ok
}

// str returns an input, or def when it is not set.
func (in inputs) str(name, def string) string {
	v, ok := in.get(name)
	if !ok {
		return def
	}
	return v
}

// boolean reads a true/false input (YAML 1.2 core spellings); def when it
// is unset or empty.
func (in inputs) boolean(name string, def bool) (bool, error) {
	v, ok := in.get(name)
	if !ok || v == "" {
		return def, nil
	}
	switch v {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("input %q is %q: want true or false", name, v)
}

// actionInputs are the inputs that are not `plumb check` flags.
type actionInputs struct {
	token          string
	sarifFile      string
	reportFile     string
	annotations    bool
	reviewComments bool
	summaryComment bool
	jobSummary     bool
	postReport     string
	postEvent      string
	// category is the SARIF run's runAutomationDetails.id category.
	category string
}

// Defaults of the output files (relative to the workspace).
const (
	defaultSARIFFile  = "plumb.sarif"
	defaultReportFile = "plumb-report.json"
)

func readActionInputs(in inputs) (actionInputs, error) {
	a := actionInputs{
		token:      in.str("token", ""),
		sarifFile:  in.str("sarif-file", defaultSARIFFile),
		reportFile: in.str("report-file", defaultReportFile),
		postReport: in.str("post-report", ""),
		postEvent:  in.str("post-event", ""),
		category:   in.str("category", ""),
	}
	var errs []string
	for _, b := range []struct {
		name string
		into *bool
	}{
		{"annotations", &a.annotations},
		{"review-comments", &a.reviewComments},
		{"summary-comment", &a.summaryComment},
		{"job-summary", &a.jobSummary},
	} {
		v, err := in.boolean(b.name, true)
		if err != nil {
			errs = append(errs, err.Error())
		}
		*b.into = v
	}
	if a.postReport != "" && a.postEvent == "" {
		errs = append(errs, `input "post-report" needs "post-event": the pull_request event saved by the analysis run`)
	}
	if len(errs) > 0 {
		return a, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return a, nil
}
