package config

import (
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Suppression is one entry of .plumb.yaml's suppressions: it accepts the
// findings that match every selector given, for the reason given, until an
// optional date.
type Suppression struct {
	// Fingerprint is a finding's fingerprint, as reports print it.
	Fingerprint string `yaml:"fingerprint"`
	// Rule is a rule id or a pattern of them ("check/*").
	Rule string `yaml:"rule"`
	// Path is a pattern of repository file paths ("legacy/**").
	Path string `yaml:"path"`
	// Field is a field path of the rendered object; it matches that field
	// and everything below it.
	Field string `yaml:"field"`
	// Object selects objects by their identity; empty keys match anything
	// and values may be patterns.
	Object *ObjectSelector `yaml:"object"`
	// Reason says why the findings are accepted (required).
	Reason string `yaml:"reason"`
	// Until is the last day (YYYY-MM-DD) the suppression applies; after it
	// the findings come back.
	Until string `yaml:"until"`

	// Line and Column are the entry's position in the configuration file.
	Line   int `yaml:"-"`
	Column int `yaml:"-"`
}

// ObjectSelector matches object identities.
type ObjectSelector struct {
	APIVersion string `yaml:"api_version"`
	Kind       string `yaml:"kind"`
	Namespace  string `yaml:"namespace"`
	Name       string `yaml:"name"`
	// Target is the render target (a directory or an overlay).
	Target string `yaml:"target"`
}

// suppressionPositions records where each entry of suppressions: is
// written, for messages (the entries decode without positions).
func suppressionPositions(root *yaml.Node, entries []Suppression) {
	if root == nil || root.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "suppressions" {
			continue
		}
		seq := root.Content[i+1]
		if seq.Kind == yaml.AliasNode && seq.Alias != nil {
			seq = seq.Alias
		}
		for j, item := range seq.Content {
			if j < len(entries) {
				entries[j].Line, entries[j].Column = item.Line, item.Column
			}
		}
	}
}

// DateLayout is the layout of suppression expiry dates.
const DateLayout = "2006-01-02"

// validateSuppressions checks every entry and reports each problem as
// file:line:col.
func validateSuppressions(file string, entries []Suppression) error {
	var errs []error
	for i := range entries {
		s := &entries[i]
		at := fmt.Sprintf("%s:%d:%d: suppressions[%d]", file, s.Line, s.Column, i)
		if s.Reason == "" {
			errs = append(errs, fmt.Errorf("%s: reason is required: say why the findings are accepted", at))
		}
		if s.Fingerprint == "" && s.Rule == "" && s.Path == "" && s.Field == "" && (s.Object == nil || *s.Object == ObjectSelector{}) {
			errs = append(errs, fmt.Errorf("%s: give at least one of fingerprint, rule, path, field or object", at))
		}
		if s.Until != "" {
			if _, err := time.Parse(DateLayout, s.Until); err != nil {
				errs = append(errs, fmt.Errorf("%s: until %q: want a date as YYYY-MM-DD", at, s.Until))
			}
		}
		if s.Rule != "" {
			if _, err := path.Match(s.Rule, ""); err != nil {
				errs = append(errs, fmt.Errorf("%s: rule %q: %w", at, s.Rule, err))
			}
		}
		if s.Path != "" && !doublestar.ValidatePattern(s.Path) {
			errs = append(errs, fmt.Errorf("%s: path %q: not a valid pattern", at, s.Path))
		}
		if s.Field != "" {
			if _, err := manifest.ParsePath(s.Field); err != nil {
				errs = append(errs, fmt.Errorf("%s: field %q: %w", at, s.Field, err))
			}
		}
		if o := s.Object; o != nil {
			for _, v := range []string{o.APIVersion, o.Kind, o.Namespace, o.Name, o.Target} {
				if _, err := path.Match(v, ""); err != nil {
					errs = append(errs, fmt.Errorf("%s: object pattern %q: %w", at, v, err))
				}
			}
		}
	}
	return errors.Join(errs...)
}
