// Package action is plumb as a GitHub Action: it reads the action's inputs
// and the workflow's event, runs the same pipeline as `plumb check`, and
// reports on every surface GitHub offers — the SARIF file for code
// scanning, workflow-command annotations, review comments on the changed
// lines, one summary comment edited in place, the job summary and the
// step's outputs. Posting to the pull request degrades, never fails the
// step: when the token cannot write (a fork, a read-only token) the
// findings are still in the annotations and the job summary.
package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/redact"
	"github.com/plumb-ci/plumb/internal/report"
)

// Env is the world the action runs in; tests build their own.
type Env struct {
	// LookupEnv reads the environment (INPUT_*, GITHUB_*).
	LookupEnv func(string) (string, bool)
	// Stdout receives the log and the workflow commands.
	Stdout io.Writer
	// HTTP is the base transport of GitHub API calls (nil: the default).
	HTTP http.RoundTripper
	// Clock paces and delays API retries (nil: real time).
	Clock github.Clock
}

// OSEnv is the process environment.
func OSEnv(stdout io.Writer) Env {
	return Env{LookupEnv: os.LookupEnv, Stdout: stdout}
}

func (e Env) getenv(k string) string {
	v, _ := e.LookupEnv(k)
	return v
}

// maskWriter is where the ::add-mask:: command goes: the one line that
// carries the token on purpose, past the redaction of stdout (main's
// redact.Writer).
func (e Env) maskWriter() io.Writer {
	if u, ok := e.Stdout.(interface{ Unredacted() io.Writer }); ok {
		return u.Unredacted()
	}
	return e.Stdout
}

// Detected reports whether the process runs as a GitHub Action step (the
// runner sets GITHUB_ACTIONS and passes inputs as INPUT_* variables), so the
// binary can start in action mode without arguments.
func Detected(environ []string) bool {
	actions, input := false, false
	for _, kv := range environ {
		switch {
		case kv == "GITHUB_ACTIONS=true":
			actions = true
		case strings.HasPrefix(kv, "INPUT_"):
			input = true
		}
	}
	return actions && input
}

// runner holds one run's state.
type runner struct {
	env   Env
	out   io.Writer
	gha   *githubactions.Action
	in    inputs
	ai    actionInputs
	ghctx *github.Context
	root  string
	// posting is the fork-safe poster's mode: the workspace holds the
	// analysis run's artifact, not the repository.
	posting bool
	// printed counts the annotations (error, warning and notice commands)
	// the runner printed itself: they share GitHub's per-step caps with
	// the findings' annotations.
	printed report.LevelCounts
	// client is the run's GitHub client (githubClient).
	client *github.Client
}

// Run runs the action and returns the exit code: the `plumb check` code
// (1 for findings at or above fail-on, 2 when plumb cannot run as asked), never non-zero
// because posting to GitHub failed.
func Run(ctx context.Context, env Env) int {
	r := &runner{env: env, out: env.Stdout}
	r.gha = githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.getenv))
	r.in = inputs{lookup: func(name string) (string, bool) {
		if _, ok := env.LookupEnv(name); !ok {
			return "", false
		}
		return r.gha.Getenv(name), true
	}}
	return r.run(ctx)
}

func (r *runner) run(ctx context.Context) int {
	// Mask the token before anything else is printed.
	token := r.in.str("token", "")
	if token != "" {
		if strings.ContainsAny(token, "\r\n") {
			r.command("error", "the token input holds a line break; it cannot be a GitHub token")
			return pipeline.ExitError
		}
		githubactions.New(githubactions.WithWriter(r.env.maskWriter())).AddMask(token)
	}
	ai, err := readActionInputs(r.in)
	if err != nil {
		r.errorLines(err)
		return pipeline.ExitError
	}
	r.ai = ai

	ghctx, err := github.LoadContext(r.env.getenv)
	if err != nil {
		// Report all the same, without the pull request.
		r.command("warning", fmt.Sprintf("%v; reporting without the pull request", err))
		ghctx.PR, ghctx.WorkflowRun = nil, nil
	}
	r.ghctx = ghctx
	r.root = ghctx.Workspace
	if r.root == "" {
		if r.root, err = os.Getwd(); err != nil {
			r.command("error", err.Error())
			return pipeline.ExitError
		}
	}
	if ai.postReport != "" {
		return r.post(ctx)
	}
	return r.analyze(ctx)
}

// analyze is the normal mode: check the workspace, then report.
func (r *runner) analyze(ctx context.Context) int {
	fl, err := bindCheckInputs(r.in)
	if err != nil {
		r.errorLines(err)
		return pipeline.ExitError
	}
	fl.Root = r.root
	cfg, err := config.Load(fl, r.root)
	if err != nil {
		r.errorLines(err)
		return pipeline.ExitError
	}
	r.defaultBaseRef(cfg)
	// The action's own output files are not manifests.
	for _, f := range []string{r.ai.sarifFile, r.ai.reportFile} {
		if f != "" {
			if rel, err := config.RepoPath(cfg.Root, r.root, f); err == nil {
				cfg.Exclude = append(cfg.Exclude, rel)
			}
		}
	}
	// The reports are written under the run's collector settings too.
	defer pipeline.Collector(cfg)()
	res, err := pipeline.Check(ctx, cfg)
	if err != nil {
		r.errorLines(err)
		return pipeline.ExitError
	}
	rep := res.Report
	r.logReport(rep)
	for _, e := range res.Errors {
		r.command("error", e.Error())
	}

	code := res.ExitCode(cfg.FailOn)
	// The category is set here, not by upload-sarif: its category input
	// only fills in a run that has none.
	sarifFile, err := r.writeOutput(report.Output{Format: "sarif", Sink: report.SARIF{Category: r.ai.category}}, r.ai.sarifFile, rep)
	if err != nil {
		code = pipeline.ExitError
	}
	reportFile, err := r.writeOutput(report.Output{Format: "json"}, r.ai.reportFile, rep)
	if err != nil {
		code = pipeline.ExitError
	}

	pr := r.ghctx.PR
	if pr != nil && r.ghctx.EventName != "pull_request" && r.ghctx.EventName != "pull_request_target" {
		pr = nil // review events: report, but the PR is discussed elsewhere
	}
	r.publish(ctx, rep, pr)
	r.setOutputs(rep, sarifFile, reportFile)
	return code
}

// defaultBaseRef turns pull-request mode on against the pull request's base
// commit when neither the base-ref input nor .plumb.yaml names a base:
// action.yml passes the event's base SHA as the input's default, and this
// gives the same default to a step that runs the image without action.yml
// (docker:// or docker run). An input set to "" turns the mode off.
func (r *runner) defaultBaseRef(cfg *config.Config) {
	if _, set := r.in.get("base-ref"); set || cfg.BaseRef != "" {
		return
	}
	if pr := r.ghctx.PR; pr != nil && pr.BaseSHA != "" && (r.ghctx.EventName == "pull_request" || r.ghctx.EventName == "pull_request_target") {
		cfg.BaseRef = pr.BaseSHA
	}
}

// writeOutput writes one report file an input names (none when name is
// empty) and returns the name for the step's outputs: "" when it was not
// written. A relative name is written inside the workspace without
// following the repository's links (report.WithinRoot). A failure is said;
// the findings still go to the other surfaces, and the step fails as for
// any unusable input.
func (r *runner) writeOutput(o report.Output, name string, rep *report.Report) (string, error) {
	if name == "" {
		return "", nil
	}
	o.File = r.abs(name)
	if !filepath.IsAbs(name) && config.InRepository(r.root, o.File) {
		o.Root = r.root
	}
	if err := report.WriteAll([]report.Output{o}, rep, io.Discard); err != nil {
		r.errorLines(err)
		return "", err
	}
	return name, nil
}

// abs resolves an output path against the workspace.
func (r *runner) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.root, p)
}

// logReport prints the text report in a collapsed group. Finding text is
// repository content: between stop-commands markers (with a token nobody
// can guess) the runner treats nothing as a workflow command.
func (r *runner) logReport(rep *report.Report) {
	stop := randomToken()
	fmt.Fprintf(r.out, "::group::plumb report\n::stop-commands::%s\n", stop)
	// The log is a courtesy copy: the job summary and the report files carry
	// every finding, so a failed write to it changes nothing.
	_ = report.Text{}.Write(r.out, rep)
	fmt.Fprintf(r.out, "::%s::\n::endgroup::\n", stop)
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "plumb-" + hex.EncodeToString(b)
}

// command prints one workflow command with an escaped message.
func (r *runner) command(name, msg string) {
	var props map[string]string
	if name != "debug" {
		props = map[string]string{"title": "plumb"}
	}
	switch name {
	case "error":
		r.printed.Add(finding.Error)
	case "warning":
		r.printed.Add(finding.Warning)
	case "notice":
		r.printed.Add(finding.Note)
	}
	fmt.Fprintln(r.out, report.WorkflowCommand(name, props, msg))
}

// errorLines prints an error of several lines as one error per line.
func (r *runner) errorLines(err error) {
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.TrimSpace(line) != "" {
			r.command("error", line)
		}
	}
}

// setOutputs writes the step's outputs (when the runner gave an outputs
// file).
func (r *runner) setOutputs(rep *report.Report, sarifFile, reportFile string) {
	if r.env.getenv("GITHUB_OUTPUT") == "" {
		return
	}
	// Problems, as the summary counts them: a finding alike in several
	// render targets (a base shared by overlays) counts once.
	t := report.Count(rep)
	outputs := []struct{ k, v string }{
		{"findings", fmt.Sprint(t.Open.Total())},
		{"errors", fmt.Sprint(t.Open.Errors)},
		{"warnings", fmt.Sprint(t.Open.Warnings)},
		{"new", fmt.Sprint(t.New.Total())},
		{"fixed", fmt.Sprint(t.Fixed)},
		{"sarif-file", sarifFile},
		{"report-file", reportFile},
	}
	for _, o := range outputs {
		if err := safely(func() { r.gha.SetOutput(o.k, redact.Process().String(o.v)) }); err != nil {
			r.command("warning", fmt.Sprintf("could not set the %s output: %v", o.k, err))
			return
		}
	}
}

// safely runs a go-githubactions call that panics on I/O errors.
func safely(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	f()
	return nil
}
