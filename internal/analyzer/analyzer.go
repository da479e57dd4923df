// Package analyzer is the contract between the pipeline and the engines that
// analyse rendered objects (hygiene, checks, KubeVirt validations, the
// reference comparison). Engines import it; the pipeline runs them
// concurrently and merges their outputs.
package analyzer

import (
	"context"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// Input is what every analyzer sees: the render targets with their objects
// (after preprocess rules), and the check environment.
type Input struct {
	Targets []*render.Target
	// Env is the environment checks are evaluated in (--env, .plumb.yaml,
	// and plugin data set by preprocess rules).
	Env map[string]any
	// TargetEnv holds per-target additions to Env, by target name (plugin
	// data that preprocess rules set for the objects of one target, such as
	// the environment derived from an overlay's directory).
	TargetEnv map[string]map[string]any
	// Sharded is set when the run checks one share of the render targets
	// (--shard): findings that compare targets with each other cannot be
	// decided by one shard and are left to plumb merge.
	Sharded bool
	// Cache, when set, keeps analyzers' results per render target between
	// runs (nil: no cache).
	Cache TargetCache
	// Base, in pull-request mode, are the base revision's render targets
	// when the input is the head's (nil otherwise): engines that judge a
	// change as an update (admission policies' oldObject) read the objects
	// as they were. Engines must not modify them.
	Base []*render.Target
}

// TargetCache keeps what an analyzer found in one render target, between
// runs. An entry is found only when the target is made from exactly the
// same files, the run's configuration (catalogs, rules, reference,
// settings, plumb's own build) is the same, and the target's environment
// is the same, so an analyzer whose result for a target depends on nothing
// else — not on other targets, not on the clock — can take it instead of
// analysing the target again. Results that compare targets with each other
// are the analyzer's to recompute from what it keeps per target.
//
// Payloads are the analyzer's own encoding (package cache); a payload that
// does not decode must be treated as a miss.
type TargetCache interface {
	// Load returns what engine stored for the target; false when nothing
	// is stored or the target cannot be cached.
	Load(engine, target string) ([]byte, bool)
	// Store keeps engine's payload for the target (a no-op when the
	// target cannot be cached).
	Store(engine, target string, payload []byte)
}

// EnvFor returns the environment of one render target: Env with the
// target's additions on top. The result must not be modified.
func (in *Input) EnvFor(target string) map[string]any {
	extra := in.TargetEnv[target]
	if len(extra) == 0 {
		return in.Env
	}
	env := make(map[string]any, len(in.Env)+len(extra))
	for k, v := range in.Env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// Output is one analyzer's contribution to the report.
type Output struct {
	Findings []finding.Finding
	// Rules describes every rule that ran, for SARIF and help texts.
	Rules []finding.Rule
	// Section is the analyzer's section of the JSON report (nil for none);
	// it must marshal deterministically.
	Section any
}

// Analyzer is an engine. Analyze must not modify the input objects and must
// be safe to run concurrently with other analyzers on the same input.
// Problems with the engine's own configuration found at run time are
// findings with ConfigError set (exit 2); problems with the repository's
// content are findings with a level (InputError marks what could not be
// read as written). A returned error means the engine could not run at all.
type Analyzer interface {
	Name() string
	Analyze(ctx context.Context, in *Input) (*Output, error)
}
