package config

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"
)

// RulesConfig is the rules: section of .plumb.yaml (inspection rules).
type RulesConfig struct {
	// Files are rules files or directories of them, loaded in this order
	// before those given with --rules.
	Files []string `yaml:"files"`
	// MaskSecrets is always (default), never or sensitive.
	MaskSecrets string `yaml:"mask_secrets"`
	// MaskKeys are mapping keys whose values rules read as "***", in
	// addition to password, token and the other defaults.
	MaskKeys []string `yaml:"mask_keys"`
	// DefaultScope is the scope of user rules that set none.
	DefaultScope string `yaml:"default_scope"`
	// ObjectScope is the scope of objects without the scope annotation.
	ObjectScope string `yaml:"object_scope"`
	// ScopeAnnotation is the annotation that sets an object's scope.
	ScopeAnnotation string `yaml:"scope_annotation"`
}

// RuleFile is a rules file or directory to load.
type RuleFile struct {
	// Path is absolute; Name is how messages show it (repository-relative
	// when the file is inside the repository).
	Path, Name string
}

// RulesSettings are the resolved inspection-rule settings of a run.
type RulesSettings struct {
	Files           []RuleFile
	MaskSecrets     string
	MaskKeys        []string
	DefaultScope    string
	ObjectScope     string
	ScopeAnnotation string
	// Explain prints per object which rules matched and why (check only).
	Explain bool
}

// bindRulesInputFlags registers --rules (check and render).
func bindRulesInputFlags(fs *pflag.FlagSet, fl *Flags) {
	fs.StringArrayVar(&fl.Rules, "rules", nil, "inspection-rules file or directory (repeatable; loaded after rules.files of the configuration; built-in rules always load)")
}

// bindRulesCheckFlags registers --explain (check).
func bindRulesCheckFlags(fs *pflag.FlagSet, fl *Flags) {
	fs.BoolVar(&fl.Explain, "explain", false, "print on stderr, per object, which inspection rules matched, each condition's result and each action's arguments")
}

// BindRulesCommandFlags registers the flags of plumb rules list and show:
// the configuration, the root and --rules.
func BindRulesCommandFlags(fs *pflag.FlagSet) *Flags {
	fl := &Flags{set: fs}
	fs.StringVar(&fl.ConfigFile, "config", "", configFlagHelp)
	fs.StringVar(&fl.Root, "root", "", rootFlagHelp)
	bindRulesInputFlags(fs, fl)
	return fl
}

// resolveRules merges the rules: section with the flags.
func resolveRules(file RulesConfig, fl *Flags, root, cwd string) (RulesSettings, error) {
	s := RulesSettings{
		MaskSecrets:     file.MaskSecrets,
		MaskKeys:        file.MaskKeys,
		DefaultScope:    file.DefaultScope,
		ObjectScope:     file.ObjectScope,
		ScopeAnnotation: file.ScopeAnnotation,
		Explain:         fl.Explain,
	}
	switch s.MaskSecrets {
	case "":
		s.MaskSecrets = "always"
	case "always", "never", "sensitive":
	default:
		return s, fmt.Errorf("rules.mask_secrets %q: want always, never or sensitive", s.MaskSecrets)
	}
	seen := map[string]bool{}
	for _, p := range append(append([]string(nil), file.Files...), fl.Rules...) {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
		}
		abs = filepath.Clean(abs)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		name := filepath.ToSlash(p)
		if rel, err := RepoPath(root, cwd, p); err == nil {
			name = rel
		}
		s.Files = append(s.Files, RuleFile{Path: abs, Name: name})
	}
	return s, nil
}
