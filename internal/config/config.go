// Package config merges .plumb.yaml, action inputs and command-line flags
// into one Config. Flags win over the file; the file wins over defaults.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/shard"
)

// DefaultFile is the configuration file looked for in the working directory.
const DefaultFile = ".plumb.yaml"

// File is the schema of .plumb.yaml. Every key is documented in docs/configuration.md.
type File struct {
	// Paths to check when none are given on the command line.
	Paths []string `yaml:"paths"`
	// Exclude holds doublestar patterns of repository paths to skip.
	Exclude []string `yaml:"exclude"`
	// Include holds doublestar patterns of paths read although a
	// directory walk skips them by default (vendor/ beside a go.mod,
	// testdata/, node_modules/).
	Include []string `yaml:"include"`
	// FailOn is error, warning or never.
	FailOn string `yaml:"fail_on"`
	// Format lists report outputs, as --format takes them (F or F=FILE).
	Format []string     `yaml:"format"`
	Limits LimitsConfig `yaml:"limits"`
	Rules  RulesConfig  `yaml:"rules"`
	// RenderFile holds targets, params and template_params (render.go).
	RenderFile `yaml:",inline"`
	// KubeVirt configures the KubeVirt validations engine (kubevirt.go).
	KubeVirt KubeVirtConfig `yaml:"kubevirt"`
	// Reference configures the reference comparison (compare.go).
	Reference ReferenceFile `yaml:"reference"`
	// BaseRef, Gate and Suppressions: pull-request mode (prmode.go).
	BaseRef      string        `yaml:"base_ref"`
	Gate         string        `yaml:"gate"`
	Suppressions []Suppression `yaml:"suppressions"`
	Checks       ChecksFile    `yaml:"checks"`
	// KubernetesVersion is the cluster version to check for (kubernetes.go).
	KubernetesVersion string `yaml:"kubernetes_version"`
	// Schema configures schema validation (schema.go).
	Schema SchemaFile `yaml:"schema"`
	// Policies are admission policy files or directories, relative to the
	// configuration file (policies.go).
	Policies []string `yaml:"policies"`
	// Helm configures chart rendering (helm.go).
	Helm HelmFile `yaml:"helm"`
	// Cache configures the persistent cache (cache.go).
	Cache CacheFile `yaml:"cache"`
	// Remote is who may make plumb fetch (remote.go).
	Remote RemoteFile `yaml:"remote"`

	// src locates values for messages (position.go).
	src source
	// path is the file's absolute path ("" when parsed from bytes): a file
	// inside the repository has its paths confined to it (confine.go).
	path string
}

// LimitsConfig is the limits section of .plumb.yaml.
type LimitsConfig struct {
	// MaxFileSize is a size such as 10MiB, 512KiB or a number of bytes.
	MaxFileSize string `yaml:"max_file_size"`
	MaxDepth    int    `yaml:"max_depth"`
	// MaxAliasNodes bounds alias expansion per document.
	MaxAliasNodes int `yaml:"max_alias_nodes"`
	// MaxTargetSize is the size budget of a render target (a size).
	MaxTargetSize string `yaml:"max_target_size"`
	// MaxTargetTime is the time budget of a render target (a duration
	// such as 90s or 2m).
	MaxTargetTime string `yaml:"max_target_time"`
}

// Config is the resolved configuration of one run.
type Config struct {
	// Root is the repository root (absolute); locations are relative to it.
	Root string
	// File is the configuration file read, "" when none.
	File    string
	Paths   []string // repository-relative, slash-separated
	Exclude []string
	Include []string
	FailOn  FailOn
	Formats []string
	// MinLevel is the least severe level the text report shows; Verbose
	// lists the skipped files in it.
	MinLevel finding.Level
	Verbose  bool
	// FormatsAt is, when the formats come from the configuration file,
	// where each is written (FILE:LINE:COL), for messages about them.
	FormatsAt []string
	Limits    manifest.Limits
	Rules     RulesSettings
	// Reproducible zeroes run-dependent values (duration_ms) so reports are
	// byte-identical across runs.
	Reproducible bool
	Render       RenderConfig
	KubeVirt     KubeVirtSettings
	// Reference is the reference comparison (compare.go).
	Reference Reference
	// BaseRef is the git revision to compare with ("" outside pull-request
	// mode); Gate says which findings --fail-on applies to there.
	BaseRef string
	Gate    Gate
	// Shard is the share of the render targets to check (zero: all).
	Shard        shard.Spec
	Suppressions []Suppression
	// Now is the clock suppression expiry dates are read against (nil:
	// time.Now); tests set it.
	Now    func() time.Time
	Checks Checks
	// KubernetesVersion is the cluster version charts render for and
	// schemas are checked against (kubernetes.go).
	KubernetesVersion KubernetesVersion
	// Schema is schema validation (schema.go).
	Schema SchemaSettings
	// Policies are the admission policy files and directories of
	// policies: and --policies (policies.go).
	Policies []InputPath
	// Helm is how charts render (helm.go).
	Helm HelmConfig
	// ChangedOnly narrows the run to the render targets that read one of
	// the Changed files (repository-relative; --changed, changed.go). It
	// is off when a changed file is one of plumb's own settings: then
	// every target is checked.
	ChangedOnly bool
	Changed     []string
	// Cache is the persistent cache (cache.go).
	Cache CacheSettings
	// Remote is who may make plumb fetch (remote.go).
	Remote RemoteSettings
}

// FailOn is the exit-code threshold.
type FailOn string

const (
	FailOnError   FailOn = "error"
	FailOnWarning FailOn = "warning"
	FailOnNever   FailOn = "never"
)

func parseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailOnError, FailOnWarning, FailOnNever:
		return f, nil
	}
	return "", fmt.Errorf("fail-on %q: want error, warning or never", s)
}

// ParseFile parses and validates configuration content; name is used in
// messages. Unknown keys and values of the wrong type are errors naming the
// line.
func ParseFile(name string, data []byte) (*File, error) {
	var n yaml.Node
	f := &File{}
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil // an empty file
		}
		return nil, syntaxError(name, data, err)
	}
	if len(n.Content) == 0 {
		return f, nil
	}
	if err := decodeStrict(name, n.Content[0], f); err != nil {
		return nil, err
	}
	f.src = source{name: name, root: n.Content[0]}
	suppressionPositions(n.Content[0], f.Suppressions)
	if err := validateSuppressions(name, f.Suppressions); err != nil {
		return nil, err
	}
	if err := validateEnvironments(name, f.Checks.Environments); err != nil {
		return nil, err
	}
	if err := validateDetail(name, f.Checks.Detail); err != nil {
		return nil, err
	}
	return f, nil
}

// Resolve merges the file (nil when there is none) with the flags. cwd is
// the working directory that relative paths are resolved against.
func Resolve(file *File, fl *Flags, cwd string) (*Config, error) {
	if file == nil {
		file = &File{}
	}
	cfg := &Config{Reproducible: fl.Reproducible || os.Getenv("SOURCE_DATE_EPOCH") != ""}
	var errs []error

	root, err := resolveRoot(fl, cwd)
	if err != nil {
		return nil, err
	}
	cfg.Root = root

	paths := fl.Paths
	if fl.Changed {
		var changedErrs []error
		cfg.ChangedOnly = true
		cfg.Changed, changedErrs = resolveChanged(fl.Paths, root, cwd)
		errs = append(errs, changedErrs...)
		paths = nil // the arguments are changed files, not inputs
	}
	if len(paths) == 0 {
		paths = file.Paths
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		rel, err := RepoPath(root, cwd, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Paths = append(cfg.Paths, rel)
	}

	cfg.Exclude = normalizeExcludes(append(append([]string(nil), file.Exclude...), fl.Exclude...))
	errs = append(errs, checkExcludes(file, fl)...)
	cfg.Include = normalizeExcludes(file.Include)
	errs = append(errs, checkIncludes(file)...)

	cfg.FailOn = FailOnError
	switch {
	case fl.changed("fail-on"):
		if cfg.FailOn, err = parseFailOn(fl.FailOn); err != nil {
			errs = append(errs, err)
		}
	case file.FailOn != "":
		if cfg.FailOn, err = parseFailOn(file.FailOn); err != nil {
			errs = append(errs, file.src.errorf("fail_on", "fail_on %q: want error, warning or never", file.FailOn))
		}
	}

	cfg.Formats = file.Format
	if fl.changed("format") || len(cfg.Formats) == 0 {
		cfg.Formats = fl.Formats
	} else if file.src.name != "" {
		for i := range cfg.Formats {
			cfg.FormatsAt = append(cfg.FormatsAt, file.src.at(fmt.Sprintf("format[%d]", i)))
		}
	}

	cfg.MinLevel, cfg.Verbose = finding.Note, fl.Verbose
	if fl.MinLevel != "" {
		if cfg.MinLevel, err = finding.ParseLevel(fl.MinLevel); err != nil {
			errs = append(errs, fmt.Errorf("--min-level: %w", err))
		}
	}

	cfg.Limits, err = resolveLimits(file, fl)
	if err != nil {
		errs = append(errs, err)
	}
	if cfg.Rules, err = resolveRules(file.Rules, fl, root, cwd); err != nil {
		if at := file.src.at("rules.mask_secrets"); at != "" {
			err = fmt.Errorf("%s: %w", at, err)
		}
		errs = append(errs, err)
	}
	var renderErrs []error
	cfg.Render, renderErrs = resolveRender(file, fl)
	errs = append(errs, renderErrs...)
	if cfg.Remote, err = resolveRemote(file, fl); err != nil {
		errs = append(errs, err)
	}
	var helmErrs []error
	cfg.Helm, helmErrs = resolveHelm(file, fl, root, cwd)
	errs = append(errs, helmErrs...)
	cfg.KubeVirt = resolveKubeVirt(file, fl)
	if cfg.KubernetesVersion, err = resolveKubernetesVersion(file, fl); err != nil {
		errs = append(errs, err)
	}
	if cfg.Schema, err = resolveSchema(file, fl, root, cwd, fl.ConfigFile, cfg.KubernetesVersion); err != nil {
		errs = append(errs, err)
	}
	cfg.Policies = resolvePolicies(file, fl, root, cwd, fl.ConfigFile)
	if cfg.Reference, err = resolveReference(file.Reference, fl, root, cwd); err != nil {
		errs = append(errs, err)
	}
	cfg.Exclude = append(cfg.Exclude, cfg.Reference.Exclude...)
	if err := resolveCache(cfg, file, fl, root, cwd); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, resolvePRMode(cfg, file, fl)...)
	if cfg.Checks, err = resolveChecks(file.Checks, fl, root, cwd, fl.ConfigFile); err != nil {
		errs = append(errs, err)
	}
	if len(file.Checks.Select) > 0 && !fl.changed("select") && file.src.name != "" {
		// The file found in the working directory has no --config name:
		// problems with its select list name it as messages do.
		cfg.Checks.SelectSource = file.src.name
	}
	errs = append(errs, confineFileValues(cfg, file, fl, cwd)...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cfg, nil
}

// resolveRoot is --root, or the root discoverRoot finds.
func resolveRoot(fl *Flags, cwd string) (string, error) {
	if fl.Root == "" {
		if fl.Changed {
			// The arguments are changed files (a pre-commit hook's, run at
			// the top of the repository), not inputs: the working
			// directory's repository is the root.
			return discoverRoot(cwd, nil), nil
		}
		return discoverRoot(cwd, fl.Paths), nil
	}
	root, err := filepath.Abs(fl.Root)
	if err != nil {
		return "", fmt.Errorf("--root: %w", err)
	}
	return root, nil
}

// Load finds and reads the configuration file (the --config flag, or the
// nearest .plumb.yaml from the working directory up to the repository
// root) and resolves it with the flags.
func Load(fl *Flags, cwd string) (*Config, error) {
	name, display := fl.ConfigFile, fl.ConfigFile
	var foundIn string
	if name == "" {
		root, err := resolveRoot(fl, cwd)
		if err != nil {
			return nil, err
		}
		if candidate := findConfigFile(cwd, root); candidate != "" {
			name, foundIn = candidate, filepath.Dir(candidate)
			display = DefaultFile
			if rel, err := RepoPath(root, cwd, candidate); err == nil {
				display = rel
			}
		}
	} else if !filepath.IsAbs(name) {
		name = filepath.Join(cwd, name)
	}
	var file *File
	if name != "" {
		if err := confineConfigFile(fl, cwd, name, display); err != nil {
			return nil, err
		}
		data, err := manifest.ReadRegularFile(name, manifest.DefaultLimits.MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--config %s: the file does not exist", display)
		}
		if err != nil {
			return nil, err
		}
		if file, err = ParseFile(display, data); err != nil {
			return nil, err
		}
		file.path = name
		if foundIn != "" && foundIn != filepath.Clean(cwd) {
			file.rebase(foundIn, cwd)
		}
	}
	cfg, err := Resolve(file, fl, cwd)
	if err != nil {
		return nil, err
	}
	cfg.File = display
	if cfg.ChangedOnly && cfg.settingsChanged(cwd) != "" {
		cfg.ChangedOnly = false // plumb's own settings changed: every target may be affected
	}
	return cfg, nil
}

// RepoPath converts a path given on the command line (relative to cwd, or
// absolute) into a slash-separated path relative to the repository root.
func RepoPath(root, cwd, p string) (string, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, p)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: outside the repository root %s (set --root)", p, root)
	}
	return filepath.ToSlash(rel), nil
}
