package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// source is where a File was read from, so that a value the file sets
// wrongly is reported at its line, as unknown keys are.
type source struct {
	name string
	root *yaml.Node
}

// at returns the position of the value at key (a dotted path such as
// "limits.max_depth" or "exclude[2]") as FILE:LINE:COL; FILE alone when the
// file does not set it, "" when there is no file.
func (s source) at(key string) string {
	if s.name == "" {
		return ""
	}
	_, v := manifest.NodeAt(s.root, manifest.MustParsePath(key))
	if v == nil {
		return s.name
	}
	return fmt.Sprintf("%s:%d:%d", s.name, v.Line, v.Column)
}

// sets reports whether the file writes a value at key.
func (s source) sets(key string) bool {
	if s.root == nil {
		return false
	}
	_, v := manifest.NodeAt(s.root, manifest.MustParsePath(key))
	return v != nil
}

// errorf formats an error about the value at key, prefixed with its
// position.
func (s source) errorf(key, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if at := s.at(key); at != "" {
		return fmt.Errorf("%s: %s", at, msg)
	}
	return fmt.Errorf("%s", msg)
}

// location is the position of the key at p (the value's when the key is
// not found), or the file alone when the file does not set it.
func (s source) location(p manifest.Path) manifest.Location {
	k, v := manifest.NodeAt(s.root, p)
	switch {
	case k != nil:
		return manifest.Location{File: s.name, Line: k.Line, Column: k.Column}
	case v != nil:
		return manifest.Location{File: s.name, Line: v.Line, Column: v.Column}
	}
	return manifest.Location{File: s.name}
}
