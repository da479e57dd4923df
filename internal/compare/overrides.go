package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/template"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Override types.
const (
	OverrideMergePatch = "mergepatch"
	OverrideRFC6902    = "rfc6902"
	OverrideTemplate   = "go-template"
)

var overrideTypes = []string{OverrideMergePatch, OverrideRFC6902, OverrideTemplate}

// Override is one user override: a patch applied to the rendered reference
// of the inputs it correlates with, so an accepted deviation stops showing
// as drift. The reason is mandatory.
type Override struct {
	Name         string
	APIVersion   string
	Kind         string
	Namespace    string
	ExactMatch   string
	TemplatePath string
	Type         string
	Patch        string
	Reason       string
	Line         int

	patch any             // decoded mergepatch
	ops   jsonpatch.Patch // decoded rfc6902
	tmpl  *boundedTemplate
}

// Overrides is a loaded overrides file (-p).
type Overrides struct {
	File  string
	Items []*Override
	index *groupIndex
	exact map[string][]int
}

// ReadOverrides reads an overrides file.
func ReadOverrides(file, display string) (*Overrides, Problems) {
	data, err := manifest.ReadRegularFile(file, maxTemplateBytes)
	if err != nil {
		return nil, Problems{{Location: loc(display, 0), Message: fmt.Sprintf("failed to load user overrides: %v", cleanPathErr(err))}}
	}
	return ParseOverrides(display, data)
}

func cleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseOverrides parses overrides content: a YAML list of entries.
func ParseOverrides(file string, data []byte) (*Overrides, Problems) {
	o := &Overrides{File: file, exact: map[string][]int{}}
	root, ps := parseYAMLNode(file, data)
	if len(ps) > 0 {
		return nil, ps
	}
	r := newNodeReader(file, data)
	keys := []string{"name", "apiVersion", "kind", "namespace", "exactMatch", "templatePath", "type", "patch", "reason"}
	for i, n := range r.seq(root, "overrides") {
		where := fmt.Sprintf("overrides[%d]", i)
		f := r.fields(n, where, keys, false)
		ov := &Override{
			Name: r.str(f["name"], where+".name"), APIVersion: r.str(f["apiVersion"], where+".apiVersion"),
			Kind: r.str(f["kind"], where+".kind"), Namespace: r.str(f["namespace"], where+".namespace"),
			ExactMatch: r.str(f["exactMatch"], where+".exactMatch"), TemplatePath: r.str(f["templatePath"], where+".templatePath"),
			Type: r.str(f["type"], where+".type"), Patch: r.str(f["patch"], where+".patch"),
			Reason: r.str(f["reason"], where+".reason"), Line: n.Line,
		}
		if strings.TrimSpace(ov.Reason) == "" {
			r.errorf(n, "failed to load user overrides: missing reason (%s: every override must say why the deviation is accepted)", where)
		}
		if ov.Kind == "" && ov.ExactMatch == "" {
			r.warnf(n, "%s has neither kind nor exactMatch, so it can never apply", where)
		}
		if err := ov.compile(); err != nil {
			r.errorf(n, "failed to load user overrides: %s: %v", where, err)
		}
		o.Items = append(o.Items, ov)
	}
	if len(r.problems.Errors()) > 0 {
		return nil, r.problems
	}
	ids := make([]identity, len(o.Items))
	for i, ov := range o.Items {
		if ov.Kind != "" {
			ids[i] = identity{APIVersion: ov.APIVersion, Kind: ov.Kind, Namespace: ov.Namespace, Name: ov.Name}
		}
		if ov.ExactMatch != "" {
			o.exact[ov.ExactMatch] = append(o.exact[ov.ExactMatch], i)
		}
	}
	o.index = newGroupIndex(ids)
	return o, r.problems
}

func (ov *Override) compile() error {
	var err error
	switch ov.Type {
	case OverrideMergePatch:
		if ov.patch, err = decodeJSON([]byte(ov.Patch)); err != nil {
			return fmt.Errorf("the mergepatch patch is not JSON: %w", err)
		}
	case OverrideRFC6902:
		v, err := decodeJSON([]byte(ov.Patch))
		if err != nil {
			return fmt.Errorf("the rfc6902 patch is not JSON: %w", err)
		}
		if ov.ops, err = parseJSONPatch(v); err != nil {
			return err
		}
	case OverrideTemplate:
		t, err := template.New("override").Option("missingkey=default").Funcs(funcMap(nil, false)).Parse(ov.Patch)
		if err != nil {
			return fmt.Errorf("the go-template patch does not parse: %w", err)
		}
		instrument(t)
		ov.tmpl = bounded(t)
	default:
		return fmt.Errorf("unknown type %q (want %s)", ov.Type, strings.Join(overrideTypes, ", "))
	}
	return nil
}

// forCR returns the overrides correlated with an input: those whose
// exactMatch is its identity, else those of the most specific matching
// group of their own correlation fields (empty fields are wildcards).
func (o *Overrides) forCR(id identity) []*Override {
	if o == nil {
		return nil
	}
	idx := o.exact[id.String()]
	if len(idx) == 0 {
		idx = o.index.candidates(id)
	}
	out := make([]*Override, len(idx))
	for i, j := range idx {
		out[i] = o.Items[j]
	}
	return out
}

// apply patches the rendered reference. live is the input (after
// omission), the data of go-template patches.
func (ov *Override) apply(rendered, live map[string]any) (map[string]any, error) {
	typ, patch, ops := ov.Type, ov.patch, ov.ops
	if ov.tmpl != nil {
		out := cappedBuffer{limit: maxRenderBytes}
		if err := ov.tmpl.execute(&out, copyMap(live)); err != nil {
			return nil, fmt.Errorf("override go-template: %w", err)
		}
		m, err := parseYAMLObject("override", strings.ReplaceAll(out.String(), "<no value>", ""))
		if err != nil {
			return nil, fmt.Errorf("override go-template output: %w", err)
		}
		typ, _ = m["type"].(string)
		raw := m["patch"]
		if s, ok := raw.(string); ok {
			if raw, err = decodeJSON([]byte(s)); err != nil {
				return nil, fmt.Errorf("override go-template output: the patch is not JSON: %w", err)
			}
		}
		switch typ {
		case OverrideMergePatch:
			patch = raw
		case OverrideRFC6902:
			if ops, err = parseJSONPatch(raw); err != nil {
				return nil, fmt.Errorf("override go-template output: %w", err)
			}
		default:
			return nil, fmt.Errorf("override go-template output: type %q (want %s or %s)", typ, OverrideMergePatch, OverrideRFC6902)
		}
	}
	var res any
	var err error
	if typ == OverrideMergePatch {
		res = mergePatch(rendered, patch)
	} else if res, err = applyJSONPatch(rendered, ops); err != nil {
		return nil, fmt.Errorf("override rfc6902 patch: %w", err)
	}
	m, ok := res.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the override turned the object into a %s", kindName(res))
	}
	return m, nil
}

// generatedOverride builds the mergepatch override that accepts the
// difference between a final rendered reference and its input. Secret
// values are never written: their fields are kept with a redacted value.
func generatedOverride(id identity, templatePath, reason string, reference, live map[string]any, extra []manifest.Path) map[string]any {
	patch := createMergePatch(reference, live)
	// The patch carries the input's values: its secret ones are written
	// redacted (a field the input deletes stays null).
	var secret []manifest.Path
	for _, p := range append(manifest.SecretPaths(live), extra...) {
		if v, ok := manifest.Lookup(patch, p); ok && v != nil {
			secret = append(secret, p)
		}
	}
	patch = manifest.MaskPaths(patch, secret, manifest.Redacted)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // keys sorted, as kube-compare writes them
	enc.SetEscapeHTML(false)
	_ = enc.Encode(patch)
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	out := map[string]any{
		"apiVersion":   id.APIVersion,
		"kind":         id.Kind,
		"name":         id.Name,
		"templatePath": templatePath,
		"type":         OverrideMergePatch,
		"patch":        string(data),
		"reason":       reason,
	}
	if id.Namespace != "" {
		out["namespace"] = id.Namespace
	}
	return out
}

// asMap renders a loaded override back as it would be written.
func (ov *Override) asMap() map[string]any {
	out := map[string]any{}
	for k, v := range map[string]string{
		"name": ov.Name, "apiVersion": ov.APIVersion, "kind": ov.Kind, "namespace": ov.Namespace,
		"exactMatch": ov.ExactMatch, "templatePath": ov.TemplatePath, "type": ov.Type, "patch": ov.Patch, "reason": ov.Reason,
	} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// check warns about overrides naming templates the reference lacks.
func (o *Overrides) check(ref *Reference) Problems {
	var ps Problems
	if o == nil {
		return nil
	}
	for _, ov := range o.Items {
		if ov.TemplatePath != "" && ref.Template(ov.TemplatePath) == nil {
			ps = append(ps, Problem{Location: loc(o.File, ov.Line), Warning: true,
				Message: fmt.Sprintf("override templatePath %s names no template of the reference; it never applies", ov.TemplatePath)})
		}
	}
	return ps
}
