package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// RenderFile is the rendering part of .plumb.yaml (top-level keys).
type RenderFile struct {
	// Targets replaces the discovery of kustomize targets: directories
	// holding a kustomization, or doublestar patterns of them.
	Targets []TargetEntry `yaml:"targets"`
	// Params are OpenShift Template parameter values, for every template
	// that declares the name.
	Params map[string]string `yaml:"params"`
	// TemplateParams are parameter values for one template, by its
	// metadata.name; they win over params.
	TemplateParams map[string]map[string]string `yaml:"template_params"`
}

// TargetEntry is one targets: entry, with its position for messages.
type TargetEntry struct {
	Pattern      string
	Line, Column int
}

// UnmarshalYAML reads a plain string and keeps its position.
func (t *TargetEntry) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return fmt.Errorf("line %d: a targets entry is a directory or pattern (a non-empty string)", n.Line)
	}
	t.Pattern, t.Line, t.Column = n.Value, n.Line, n.Column
	return nil
}

// RenderConfig is the resolved rendering configuration.
type RenderConfig struct {
	Targets        []TargetEntry
	Params         map[string]string
	TemplateParams map[string]map[string]string
	// AllowRemote lets kustomize fetch remote bases (--allow-remote).
	AllowRemote bool
	// ParamLocations and TemplateParamLocations are where the file writes
	// each params entry (by name; not those --param overrides) and each
	// template_params entry (by template name), for messages about them.
	ParamLocations, TemplateParamLocations map[string]manifest.Location
}

// resolveRender merges the rendering keys of the file with --param and
// --allow-remote; --param wins over params.
func resolveRender(file *File, fl *Flags) (RenderConfig, []error) {
	rc := RenderConfig{
		Targets:        file.Targets,
		TemplateParams: file.TemplateParams,
		AllowRemote:    fl.AllowRemote,
		Params:         map[string]string{},
	}
	for k, v := range file.Params {
		rc.Params[k] = v
	}
	// The locations are nil, not empty, when the file sets none: the
	// analysis cache's key encodes the configuration, and a file without
	// params must key as no file does.
	if file.src.name != "" && len(file.Params) > 0 {
		rc.ParamLocations = map[string]manifest.Location{}
		for k := range file.Params {
			rc.ParamLocations[k] = file.src.location(manifest.Path{manifest.Key("params"), manifest.Key(k)})
		}
	}
	if file.src.name != "" && len(file.TemplateParams) > 0 {
		rc.TemplateParamLocations = map[string]manifest.Location{}
		for k := range file.TemplateParams {
			rc.TemplateParamLocations[k] = file.src.location(manifest.Path{manifest.Key("template_params"), manifest.Key(k)})
		}
	}
	var errs []error
	for _, p := range fl.Params {
		name, value, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			errs = append(errs, fmt.Errorf("--param %q: want NAME=VALUE", p))
			continue
		}
		rc.Params[name] = value
		delete(rc.ParamLocations, name)
	}
	return rc, errs
}
