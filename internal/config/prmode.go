package config

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/shard"
)

// Gate says which findings --fail-on applies to in pull-request mode.
type Gate string

const (
	// GateNew fails only on findings the pull request introduces.
	GateNew Gate = "new"
	// GateAll fails on every finding at the head, as without --base-ref.
	GateAll Gate = "all"
)

// ParseGate accepts new and all.
func ParseGate(s string) (Gate, error) {
	switch g := Gate(s); g {
	case GateNew, GateAll:
		return g, nil
	}
	return "", fmt.Errorf("gate %q: want new or all", s)
}

// ParseFailOn accepts error, warning and never (plumb merge takes
// --fail-on too).
func ParseFailOn(s string) (FailOn, error) { return parseFailOn(s) }

// prFlags are the pull-request-mode flags of `plumb check`.
type prFlags struct {
	BaseRef string
	Gate    string
	Shard   string
}

func bindPRFlags(fs *pflag.FlagSet, fl *Flags) {
	fs.StringVar(&fl.BaseRef, "base-ref", "", "pull-request mode: also check this git revision (the PR's base) and mark each finding new, unchanged or fixed")
	fs.StringVar(&fl.Gate, "gate", string(GateNew), "in pull-request mode, which findings --fail-on applies to: new or all")
	fs.StringVar(&fl.Shard, "shard", "", "check only share INDEX/COUNT of the render targets (e.g. 2/4); combine the shards' JSON reports with plumb merge")
}

// resolvePRMode fills the pull-request-mode part of cfg: flags win over the
// file.
func resolvePRMode(cfg *Config, file *File, fl *Flags) []error {
	var errs []error
	cfg.BaseRef = file.BaseRef
	if fl.changed("base-ref") {
		cfg.BaseRef = fl.BaseRef
	}
	var err error
	cfg.Gate = GateNew
	switch {
	case fl.changed("gate"):
		if cfg.Gate, err = ParseGate(fl.Gate); err != nil {
			errs = append(errs, fmt.Errorf("--gate: %w", err))
		}
	case file.Gate != "":
		if cfg.Gate, err = ParseGate(file.Gate); err != nil {
			errs = append(errs, file.src.errorf("gate", "%v", err))
		}
	}
	if fl.Shard != "" {
		if cfg.Shard, err = shard.Parse(fl.Shard); err != nil {
			errs = append(errs, fmt.Errorf("--shard: %w", err))
		}
	}
	cfg.Suppressions = file.Suppressions
	return errs
}
