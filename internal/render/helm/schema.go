package helm

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// validateSchema checks the values against each chart's values.schema.json
// as Helm does (ValidateAgainstSchema: the chart's schema on its values,
// each subchart's on its part), with one difference: a schema's remote
// $ref is not fetched (plumb renders offline), and each violation is its
// own problem at the values line it is about.
func (r *Renderer) validateSchema(c *Chart, ch *chart.Chart, toRender common.Values, src *origin) []manifest.Problem {
	vals, _ := toRender["Values"].(common.Values)
	if vals == nil {
		if m, ok := toRender["Values"].(map[string]any); ok {
			vals = m
		}
	}
	var out []manifest.Problem
	var walk func(ch *chart.Chart, v map[string]any, prefix manifest.Path)
	walk = func(ch *chart.Chart, v map[string]any, prefix manifest.Path) {
		if len(ch.Schema) > 0 {
			out = append(out, r.validateOne(c, ch, v, prefix, src)...)
		}
		for _, d := range ch.Dependencies() {
			sub, ok := v[d.Name()].(map[string]any)
			if !ok {
				continue
			}
			walk(d, sub, prefix.Child(manifest.Key(d.Name())))
		}
	}
	walk(ch, vals, nil)
	return out
}

func (r *Renderer) validateOne(c *Chart, ch *chart.Chart, vals map[string]any, prefix manifest.Path, src *origin) []manifest.Problem {
	schemaFile := c.repoFile("values.schema.json", ch.Schema)
	if schemaFile == "" {
		schemaFile = path.Join(c.Dir, "values.schema.json")
	}
	fail := func(msg string) []manifest.Problem {
		return []manifest.Problem{{Rule: RuleValues, Level: "error", Location: manifest.Location{File: schemaFile, Line: 1, Column: 1},
			Message: msg, Key: schemaFile}}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ch.Schema))
	if err != nil {
		return fail("values.schema.json is not JSON: " + err.Error())
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(jsonschema.SchemeURLLoader{"file": offlineLoader{}, "http": offlineLoader{}, "https": offlineLoader{}, "urn": offlineLoader{}})
	if err := comp.AddResource("file:///values.schema.json", doc); err != nil {
		return fail("values.schema.json cannot be used: " + err.Error())
	}
	sch, err := comp.Compile("file:///values.schema.json")
	if err != nil {
		return fail("values.schema.json does not compile: " + err.Error())
	}
	if err := validate(sch, vals); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return fail("values.schema.json: " + err.Error())
		}
		var out []manifest.Problem
		for _, leaf := range leaves(ve) {
			p := prefix
			for _, s := range leaf.InstanceLocation {
				if i, err := strconv.Atoi(s); err == nil && isListAt(vals, p[len(prefix):]) {
					p = p.Child(manifest.Index(i))
				} else {
					p = p.Child(manifest.Key(s))
				}
			}
			loc, _, ok := src.locate(p)
			for !ok && len(p) > 0 {
				p = p.Parent()
				loc, _, ok = src.locate(p)
			}
			if !ok {
				loc = manifest.Location{File: schemaFile, Line: 1, Column: 1}
			}
			where := "/" + strings.Join(leaf.InstanceLocation, "/")
			msg := fmt.Sprintf("%s: values break %s at %s: %s", ch.Name(), path.Base(schemaFile), where, leaf.ErrorKind.LocalizedString(english))
			out = append(out, manifest.Problem{Rule: RuleValues, Level: "error", Location: loc, Message: msg, Key: ch.Name() + where})
		}
		return out
	}
	return nil
}

// validate runs the schema on values converted to JSON types.
func validate(sch *jsonschema.Schema, vals map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to validate schema: %v", r)
		}
	}()
	return sch.Validate(map[string]any(vals))
}

func isListAt(v any, p manifest.Path) bool {
	got, ok := manifest.Lookup(v, p)
	_, list := got.([]any)
	return ok && list
}

// leaves are the innermost causes of a validation error.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

var english = message.NewPrinter(language.English)

// offlineLoader refuses every external schema reference.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: plumb does not fetch schema references (it renders offline)", url)
}
