package render

import (
	"bytes"
	"io/fs"

	"helm.sh/helm/v4/pkg/strvals"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// A HelmRelease's valuesFrom are read as helm-controller reads them: each
// entry's ConfigMap key (valuesKey, default values.yaml) in order, merged
// as values, or set at targetPath as Helm's --set sets it (a quoted value
// as --set-string); spec.values is merged over them last. The ConfigMap is
// one of the objects of the HelmRelease's own render target, as the
// Kustomization that applies both would have it — including one its
// kustomization generates from a values file (configMapGenerator), whose
// lines findings then point at. An entry plumb cannot read is a note and
// the chart is not rendered for the HelmRelease: never rendered with values
// missing. Secrets are not read: values from a Secret would carry secret
// values into the rendered objects and so into diffs and comments.

// fluxValues are a HelmRelease's values with where each comes from.
type fluxValues struct {
	values map[string]any
	locate []func(manifest.Path) (manifest.Location, bool)
}

// helmReleaseValues merges o's valuesFrom and spec.values; a problem says
// why the chart is not rendered.
func helmReleaseValues(fsys fs.FS, t *Target, o *manifest.Object, limits manifest.Limits) (*fluxValues, *manifest.Problem) {
	fv := &fluxValues{values: map[string]any{}}
	for i, e := range listOf(o.Content, "spec", "valuesFrom") {
		ref, _ := e.(map[string]any)
		at := pathOf("spec", "valuesFrom").Child(manifest.Index(i))
		if p := fv.addFrom(fsys, t, o, ref, at, limits); p != nil {
			return nil, p
		}
	}
	switch v := specMap(o.Content)["values"].(type) {
	case nil:
	case map[string]any:
		mergeInto(fv.values, v)
		fv.locate = append(fv.locate, objectLocate(o, pathOf("spec", "values")))
	default:
		p := wrongValues(o, pathOf("spec", "values"), v, "a mapping", "Flux")
		return nil, &p
	}
	return fv, nil
}

// inlineLocate finds the last source that gave a value.
func (fv *fluxValues) inlineLocate(rel manifest.Path) (manifest.Location, bool) {
	for i := len(fv.locate) - 1; i >= 0; i-- {
		if loc, ok := fv.locate[i](rel); ok {
			return loc, true
		}
	}
	return manifest.Location{}, false
}

// addFrom merges one valuesFrom entry (at: its path in o).
func (fv *fluxValues) addFrom(fsys fs.FS, t *Target, o *manifest.Object, ref map[string]any, at manifest.Path, limits manifest.Limits) *manifest.Problem {
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	key, _ := ref["valuesKey"].(string)
	if key == "" {
		key = "values.yaml"
	}
	targetPath, _ := ref["targetPath"].(string)
	optional, _ := ref["optional"].(bool)
	if kind != "ConfigMap" {
		return notRendered(o, at, "HelmRelease %s: valuesFrom %s %s is not read (plumb reads values from ConfigMaps only, so that secret values never reach a report), so the chart is not rendered for it",
			o.ID.Name, kind, name)
	}
	cm := findObject(t, "ConfigMap", name, o.ID.Namespace)
	var text string
	var found bool
	if cm != nil {
		v, ok := manifest.Lookup(cm.Content, manifest.Path{manifest.Key("data"), manifest.Key(key)})
		text, found = v.(string)
		found = found && ok
	}
	if !found {
		if optional {
			// Flux skips an optional entry it does not find; plumb sees
			// only this render target, where it is not.
			return nil
		}
		return notRendered(o, at, "HelmRelease %s: valuesFrom ConfigMap %s (key %s) is not among the objects of %s, so the chart is not rendered for it (Flux would fail the release unless another Kustomization applies it)",
			o.ID.Name, name, key, t.Name)
	}
	dataAt := manifest.Path{manifest.Key("data"), manifest.Key(key)}
	loc, _ := cm.Locate(dataAt)
	if targetPath != "" {
		return fv.setPath(o, at, targetPath, text, loc)
	}
	place := dataPlacer(fsys, loc, text, limits)
	vals, err := helm.ReadValues(loc.File, []byte(text), limits)
	if err != nil {
		p := notRendered(o, at, "HelmRelease %s: valuesFrom ConfigMap %s key %s is not values Helm reads: %v; the chart is not rendered for it", o.ID.Name, name, key, err)
		p.Rule, p.Level = helm.RuleValues, "error"
		p.Location = place(loc)
		return p
	}
	mergeInto(fv.values, vals.Values)
	fv.locate = append(fv.locate, func(rel manifest.Path) (manifest.Location, bool) {
		for i := len(vals.Docs) - 1; i >= 0; i-- {
			if l, exact := vals.Docs[i].Locate(rel); exact {
				return place(l), true
			}
		}
		return manifest.Location{}, false
	})
	return nil
}

// setPath sets text at targetPath as helm-controller does (Helm's strvals;
// a quoted value is a string); what it sets is placed at the ConfigMap's
// data line.
func (fv *fluxValues) setPath(o *manifest.Object, at manifest.Path, targetPath, text string, loc manifest.Location) *manifest.Problem {
	set := map[string]any{}
	var err error
	if len(text) >= 2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] {
		err = strvals.ParseIntoString(targetPath+"="+text[1:len(text)-1], set)
	} else {
		err = strvals.ParseInto(targetPath+"="+text, set)
	}
	if err != nil {
		return notRendered(o, at, "HelmRelease %s: valuesFrom targetPath %q cannot be set: %v; the chart is not rendered for it", o.ID.Name, targetPath, err)
	}
	mergeInto(fv.values, set)
	fv.locate = append(fv.locate, func(rel manifest.Path) (manifest.Location, bool) {
		if _, ok := manifest.Lookup(set, rel); ok {
			return loc, true
		}
		return manifest.Location{}, false
	})
	return nil
}

// dataPlacer maps a position in a ConfigMap value's text (at: the data
// field) to the file: the values file itself when the ConfigMap was
// generated from it (the field is placed at its line 1 and the file holds
// the text), else as textPlacer does for a literal block.
func dataPlacer(fsys fs.FS, at manifest.Location, text string, limits manifest.Limits) func(manifest.Location) manifest.Location {
	if at.Line == 1 && at.Column == 1 {
		if data, err := manifest.ReadRegular(fsys, at.File, limits.OrDefault().MaxFileBytes); err == nil && bytes.Equal(data, []byte(text)) {
			return func(loc manifest.Location) manifest.Location {
				loc.File = at.File
				return loc
			}
		}
	}
	return textPlacer(fsys, at, limits)
}

// findObject is the object of kind and name in namespace ns (or without
// one) among t's.
func findObject(t *Target, kind, name, ns string) *manifest.Object {
	for _, o := range t.Objects {
		if o.ID.Kind == kind && o.ID.Name == name && (o.ID.Namespace == ns || o.ID.Namespace == "") {
			return o
		}
	}
	return nil
}
