package config

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// ChecksFile is the checks: section of .plumb.yaml.
type ChecksFile struct {
	// Dirs are extra catalog directories, relative to the configuration
	// file's directory.
	Dirs []string `yaml:"dirs"`
	// DefaultCatalog turns the embedded default catalog off when false.
	DefaultCatalog *bool `yaml:"default_catalog"`
	// Select limits the run to these check ids.
	Select []SelectedCheck `yaml:"select"`
	// Env is the check environment (metadata matching, when, value
	// conditions).
	Env map[string]any `yaml:"env"`
	// Customizations override check values: {check id: {value: custom}}.
	Customizations map[string]map[string]CustomValue `yaml:"customizations"`
	// Environments are doublestar patterns of render targets that are the
	// environments of an application, whatever their directory names.
	Environments []EnvironmentPattern `yaml:"environments"`
	// Detail is how much of every check's per-target results the JSON
	// report lists (--checks-detail wins).
	Detail DetailSetting `yaml:"detail"`
}

// The detail levels of the JSON report's checks section: summary lists
// the targets that did not pass and counts the others, full lists every
// target (Wanda's Result as it is).
const (
	DetailSummary = "summary"
	DetailFull    = "full"
)

// DetailSetting is checks.detail with its position in the file, so a
// value that is not a detail level names its line.
type DetailSetting struct {
	Value        string
	Line, Column int
}

// UnmarshalYAML keeps the node's position and its text: validateDetail
// refuses anything but a detail level (a list or a mapping has no text),
// at the line.
func (d *DetailSetting) UnmarshalYAML(n *yaml.Node) error {
	d.Line, d.Column = n.Line, n.Column
	d.Value = n.Value
	return nil
}

// validDetail reports whether s is a detail level.
func validDetail(s string) bool { return s == DetailSummary || s == DetailFull }

// detailHelp is what --checks-detail and checks.detail accept.
const detailHelp = "want summary (each check's targets that did not pass, the others counted) or full (every target)"

// EnvironmentPattern is one pattern of checks.environments with its
// position in the file, so a pattern that does not parse names its line.
type EnvironmentPattern struct {
	Pattern      string
	Line, Column int
}

// UnmarshalYAML keeps the node's position.
func (p *EnvironmentPattern) UnmarshalYAML(n *yaml.Node) error {
	p.Line, p.Column = n.Line, n.Column
	return n.Decode(&p.Pattern)
}

// CustomValue is one custom value with its position in the file, so a
// rejected customization can name its line.
type CustomValue struct {
	Value        any
	Line, Column int
}

// UnmarshalYAML keeps the node's position.
func (c *CustomValue) UnmarshalYAML(n *yaml.Node) error {
	c.Line, c.Column = n.Line, n.Column
	return n.Decode(&c.Value)
}

// SelectedCheck is one id of checks.select with its position in the file,
// so an id the catalog does not have can name its line.
type SelectedCheck struct {
	ID           string
	Line, Column int
}

// UnmarshalYAML keeps the node's position.
func (s *SelectedCheck) UnmarshalYAML(n *yaml.Node) error {
	s.Line, s.Column = n.Line, n.Column
	return n.Decode(&s.ID)
}

// ChecksFlags are the flags of the checks engine.
type ChecksFlags struct {
	ChecksDirs      []string
	NoDefaultChecks bool
	Env             []string
	Select          []string
	// Detail is --checks-detail.
	Detail string
}

// CatalogDir is one extra catalog directory.
type CatalogDir struct {
	// Path is the directory on disk (absolute).
	Path string
	// Display is how messages name it: repository-relative when it is
	// inside the repository, else as given.
	Display string
}

// Checks is the resolved configuration of the checks engine.
type Checks struct {
	Dirs           []CatalogDir
	DefaultCatalog bool
	// Select is empty for every check. SelectSource says where it was set
	// ("--select" or the configuration file).
	Select       []string
	SelectSource string
	// SelectAt is where the configuration file names each selected id
	// (empty when --select sets them).
	SelectAt map[string]SelectedCheck
	Env      map[string]any
	// Customizations come from the configuration file (CustomValue lines
	// are in that file).
	Customizations map[string]map[string]CustomValue
	// Environments are doublestar patterns of render target names (paths
	// from the root) declared to be environments (checks.environments).
	Environments []string
	// Detail is the JSON report's detail of the checks section:
	// DetailSummary or DetailFull.
	Detail string
}

// bindChecksFlags registers the checks flags.
func bindChecksFlags(fs *pflag.FlagSet, fl *Flags) {
	fs.StringArrayVar(&fl.ChecksDirs, "checks", nil, "extra checks catalog directory of <id>.yaml files (repeatable)")
	fs.BoolVar(&fl.NoDefaultChecks, "no-default-checks", false, "do not run the embedded default checks catalog")
	fs.StringArrayVar(&fl.Env, "env", nil, "check environment entry key=value, e.g. environment=prod (repeatable; wins over .plumb.yaml)")
	fs.StringSliceVar(&fl.Select, "select", nil, "run only these check ids (comma-separated or repeated)")
	fs.StringVar(&fl.Detail, "checks-detail", DetailSummary, "JSON report: the checks section lists each check's targets that did not pass and counts the others (summary), or lists every target (full)")
}

// BindCatalogFlags registers the flags of the `plumb checks` commands that
// read a catalog: --config, --root, --checks, --no-default-checks and --env.
func BindCatalogFlags(fs *pflag.FlagSet) *Flags {
	fl := &Flags{set: fs}
	fs.StringVar(&fl.ConfigFile, "config", "", configFlagHelp)
	fs.StringVar(&fl.Root, "root", "", rootFlagHelp)
	fs.StringArrayVar(&fl.ChecksDirs, "checks", nil, "extra checks catalog directory of <id>.yaml files (repeatable)")
	fs.BoolVar(&fl.NoDefaultChecks, "no-default-checks", false, "leave out the embedded default checks catalog")
	fs.StringArrayVar(&fl.Env, "env", nil, "environment entry key=value (repeatable)")
	return fl
}

// resolveChecks merges the checks section with the flags: directories add
// up, the default catalog is on unless either turns it off, --select
// replaces the file's list and --env entries win key by key.
func resolveChecks(file ChecksFile, fl *Flags, root, cwd, configFile string) (Checks, error) {
	c := Checks{DefaultCatalog: true, Env: map[string]any{}}
	add := func(base, dir string) {
		abs, display := resolveInputPath(root, base, dir)
		c.Dirs = append(c.Dirs, CatalogDir{Path: abs, Display: display})
	}
	for _, d := range file.Dirs {
		add(configDir(cwd, configFile), d)
	}
	for _, d := range fl.ChecksDirs {
		add(cwd, d)
	}
	if file.DefaultCatalog != nil && !*file.DefaultCatalog || fl.NoDefaultChecks {
		c.DefaultCatalog = false
	}
	if len(file.Select) > 0 {
		c.SelectSource, c.SelectAt = configFile, map[string]SelectedCheck{}
		for _, s := range file.Select {
			c.Select = append(c.Select, s.ID)
			if _, dup := c.SelectAt[s.ID]; !dup {
				c.SelectAt[s.ID] = s
			}
		}
	}
	if fl.changed("select") {
		c.Select, c.SelectSource, c.SelectAt = nil, "--select", nil
		for _, s := range fl.Select {
			if s = strings.TrimSpace(s); s != "" {
				c.Select = append(c.Select, s)
			}
		}
	}
	for k, v := range file.Env {
		c.Env[k] = v
	}
	flagEnv, err := ParseEnv(fl.Env)
	if err != nil {
		return c, err
	}
	for k, v := range flagEnv {
		c.Env[k] = v
	}
	c.Customizations = file.Customizations
	if c.Detail, err = resolveDetail(file.Detail, fl); err != nil {
		return c, err
	}
	for _, e := range file.Environments {
		c.Environments = append(c.Environments, environmentPattern(e.Pattern))
	}
	return c, nil
}

// resolveDetail is --checks-detail when given, else checks.detail, else
// the summary. The file's value was validated when it was parsed.
func resolveDetail(file DetailSetting, fl *Flags) (string, error) {
	if fl.changed("checks-detail") {
		if !validDetail(fl.Detail) {
			return "", fmt.Errorf("--checks-detail %q: %s", fl.Detail, detailHelp)
		}
		return fl.Detail, nil
	}
	if file.Value != "" {
		return file.Value, nil
	}
	return DetailSummary, nil
}

// validateDetail refuses a checks.detail that is not a detail level, at
// its line.
func validateDetail(name string, d DetailSetting) error {
	if d.Line != 0 && !validDetail(d.Value) {
		return fmt.Errorf("%s:%d:%d: checks.detail %q: %s", name, d.Line, d.Column, d.Value, detailHelp)
	}
	return nil
}

// environmentPattern is a checks.environments pattern as render target
// names are written: slashes, cleaned.
func environmentPattern(p string) string { return path.Clean(filepath.ToSlash(p)) }

// validateEnvironments refuses a checks.environments pattern that does not
// parse or cannot name a render target (outside the root), at its line.
func validateEnvironments(name string, patterns []EnvironmentPattern) error {
	for _, e := range patterns {
		p := environmentPattern(e.Pattern)
		if !doublestar.ValidatePattern(p) || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
			return fmt.Errorf("%s:%d:%d: checks.environments: %q is not a pattern of render targets in the repository; write a doublestar pattern relative to the root, such as clusters/*", name, e.Line, e.Column, e.Pattern)
		}
	}
	return nil
}

// ParseEnv parses key=value entries (the --env syntax) into a map.
func ParseEnv(entries []string) (map[string]any, error) {
	env := map[string]any{}
	for _, kv := range entries {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--env %q: want key=value", kv)
		}
		env[strings.TrimSpace(k)] = v
	}
	return env, nil
}
