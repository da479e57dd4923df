package manifest

import (
	"bytes"
	"slices"
	"time"
)

// Limits bound what one input file may cost. A pull request controls its
// files, so every limit exists to keep a hostile file from exhausting the
// runner; the defaults are far above what real manifests need.
type Limits struct {
	// MaxFileBytes is the largest file read (default 10 MiB).
	MaxFileBytes int64
	// MaxDepth is the deepest nesting of mappings and sequences (default 500;
	// the deepest CustomResourceDefinitions in common use stay below 100).
	MaxDepth int
	// MaxAliasNodes bounds the nodes that alias expansion may produce in one
	// document (default 100,000), which stops "billion laughs" documents.
	MaxAliasNodes int
	// MaxTargetBytes is the size budget of one render target (default 64
	// MiB): what a kustomize build may read (every file, as often as it
	// reads it) and the objects it may produce; what a chart may hold, and
	// what its templates may write (with plumb's trace of them).
	MaxTargetBytes int64
	// MaxTargetTime is the time budget of one render target (default one
	// minute): a kustomize build or a chart render still running then is
	// reported and not checked.
	MaxTargetTime time.Duration
}

// DefaultLimits are the limits used when none are configured.
var DefaultLimits = Limits{
	MaxFileBytes:   10 << 20,
	MaxDepth:       500,
	MaxAliasNodes:  100_000,
	MaxTargetBytes: 64 << 20,
	MaxTargetTime:  time.Minute,
}

// orDefault fills unset limits with the defaults.
func (l Limits) orDefault() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultLimits.MaxFileBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxAliasNodes <= 0 {
		l.MaxAliasNodes = DefaultLimits.MaxAliasNodes
	}
	if l.MaxTargetBytes <= 0 {
		l.MaxTargetBytes = DefaultLimits.MaxTargetBytes
	}
	if l.MaxTargetTime <= 0 {
		l.MaxTargetTime = DefaultLimits.MaxTargetTime
	}
	return l
}

// LimitProblems returns the problems of a file's content that break the
// nesting and alias limits: what a YAML library without such limits (a
// kustomize build) would crash or spin on. Content without any alias and
// shorter than the nesting limit cannot break them and is not parsed.
func LimitProblems(name string, data []byte, limits Limits) []Problem {
	limits = limits.orDefault()
	if !bytes.ContainsRune(data, '*') && len(data) <= limits.MaxDepth {
		return nil
	}
	_, problems := Parse(name, data, limits)
	return slices.DeleteFunc(problems, func(p Problem) bool { return !IsLimitProblem(p) })
}

// IsLimitProblem reports whether a problem is about a limit that protects
// the process (size, nesting, aliases, the file's type) rather than about
// the content as YAML.
func IsLimitProblem(p Problem) bool {
	switch p.Rule {
	case RuleTooDeep, RuleAliasLimit, RuleTooLarge:
		return true
	}
	return false
}

// OrDefault fills unset limits with the defaults.
func (l Limits) OrDefault() Limits { return l.orDefault() }
