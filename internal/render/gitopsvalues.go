package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// Values written inside a GitOps definition are read as its controller
// gives them to Helm, and never dropped: an Argo CD Application's
// helm.values is YAML text that Argo CD passes to `helm template` as a
// values file, so it is read as Helm reads one (helm.ReadValues: a key
// written twice keeps its last value, reported as a warning at its line);
// values that cannot be read are an error at their line, and the chart is
// not rendered with them — never rendered with no values, which would check
// the chart's defaults instead of what the definition deploys. Mappings
// (valuesObject, a HelmRelease's spec.values) are part of the object,
// whose duplicate keys the manifest loader reports; one that is not a
// mapping is an error.

// embeddedValues are the values an Application's helm.values text holds.
type embeddedValues struct {
	values map[string]any
	locate func(manifest.Path) (manifest.Location, bool)
}

// argoValues reads the helm.values text at p of o. problems are the text's
// duplicate keys (warnings) or, when ok is false, why it cannot be read.
func argoValues(fsys fs.FS, o *manifest.Object, p manifest.Path, text string, limits manifest.Limits) (ev embeddedValues, problems []manifest.Problem, ok bool) {
	at, _ := o.Locate(p)
	place := textPlacer(fsys, at, limits)
	vals, err := helm.ReadValues(at.File, []byte(text), limits)
	if err != nil {
		loc, why := at, err.Error()
		var fe *helm.FileError
		if errors.As(err, &fe) {
			loc, why = place(fe.At), fe.Err
		}
		return ev, []manifest.Problem{{Rule: helm.RuleValues, Level: "error", Location: loc, Object: o.ID, Path: p, Input: true,
			Key: o.ID.Key() + ":" + p.String(),
			Message: fmt.Sprintf("Application %s: %s cannot be read as Helm reads it (Argo CD gives it to helm template as a values file): %s; "+
				"the chart is not rendered for this Application until it can", o.ID.Name, p, why)}}, false
	}
	for _, d := range vals.DuplicateProblems(place) {
		d.Object, d.Key = o.ID, o.ID.Key()+":"+p.String()+":"+d.Key
		problems = append(problems, d)
	}
	ev.values = vals.Values
	ev.locate = func(rel manifest.Path) (manifest.Location, bool) {
		// Documents merge in order: the last that has the key gave it.
		for i := len(vals.Docs) - 1; i >= 0; i-- {
			if loc, exact := vals.Docs[i].Locate(rel); exact {
				return place(loc), true
			}
		}
		return manifest.Location{}, false
	}
	return ev, problems, true
}

// textPlacer maps a position in YAML text held by a string field (at: the
// field) to the file: a literal block (|) line by line and column by
// column; any other form of string at the field itself.
func textPlacer(fsys fs.FS, at manifest.Location, limits manifest.Limits) func(manifest.Location) manifest.Location {
	whole := func(manifest.Location) manifest.Location { return at }
	if at.Line == 0 {
		return whole
	}
	data, err := manifest.ReadRegular(fsys, at.File, limits.OrDefault().MaxFileBytes)
	if err != nil {
		return whole
	}
	lines := bytes.Split(data, []byte("\n"))
	if at.Line > len(lines) {
		return whole
	}
	line := string(lines[at.Line-1])
	if at.Column < 1 || at.Column > len(line) {
		return whole
	}
	_, value, found := strings.Cut(line[at.Column-1:], ":")
	if !found || !strings.HasPrefix(strings.TrimSpace(value), "|") {
		return whole
	}
	indent := 0
	for _, l := range lines[at.Line:] {
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) > 0 {
			indent = len(l) - len(bytes.TrimLeft(l, " "))
			break
		}
	}
	return func(loc manifest.Location) manifest.Location {
		loc.File = at.File
		loc.Line += at.Line
		if loc.Column > 0 {
			loc.Column += indent
		}
		if loc.EndLine > 0 {
			loc.EndLine += at.Line
			loc.EndColumn += indent
		}
		return loc
	}
}

// wrongValues is the error for values at p of o that are not what the
// controller (who) takes: want, "a mapping" or "YAML text".
func wrongValues(o *manifest.Object, p manifest.Path, v any, want, who string) manifest.Problem {
	loc, _ := o.Locate(p)
	return manifest.Problem{Rule: helm.RuleValues, Level: "error", Location: loc, Object: o.ID, Path: p, Input: true,
		Key: o.ID.Key() + ":" + p.String(),
		Message: fmt.Sprintf("%s %s: %s is %s, not %s, so %s cannot read it; the chart is not rendered for it until it is %s",
			o.ID.Kind, o.ID.Name, p, kindOf(v), want, who, want)}
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a mapping"
	}
	return "a number"
}
