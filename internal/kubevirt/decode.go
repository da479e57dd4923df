package kubevirt

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// decodeError is a VM that does not decode into the typed VirtualMachine
// (the API server's schema check would refuse it, and the validator cannot
// read it): the message and the field it is about.
type decodeError struct {
	Path    manifest.Path
	Message string
}

// decodeVM decodes a rendered object into the typed VirtualMachine with
// plain encoding/json, as the validator does: keys match
// case-insensitively, keys the type does not declare are dropped.
func decodeVM(o *manifest.Object) (*v1.VirtualMachine, *decodeError) {
	if vm := (&v1.VirtualMachine{}); decodeContent(o.Content, reflect.ValueOf(vm).Elem()) == nil {
		return vm, nil
	}
	return decodeVMWithJSON(o)
}

// decodeVMWithJSON is decodeVM through encoding/json itself.
func decodeVMWithJSON(o *manifest.Object) (*v1.VirtualMachine, *decodeError) {
	data, err := json.Marshal(o.Content)
	if err != nil {
		return nil, &decodeError{Message: fmt.Sprintf("cannot encode the object as JSON: %v", err)}
	}
	vm := &v1.VirtualMachine{}
	err = json.Unmarshal(data, vm)
	if err == nil {
		return vm, nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		p, perr := manifest.ParsePath(typeErr.Field)
		if perr != nil {
			p = nil
		}
		return nil, &decodeError{Path: p, Message: fmt.Sprintf("%s: %s where the VirtualMachine schema wants %s", typeErr.Field, jsonKind(typeErr.Value), goTypeToSchema(typeErr.Type))}
	}
	// Errors from custom decoders (quantities, times) carry no field; find
	// the first quantity that does not parse.
	if p, msg := findBadQuantity(o.Content, reflect.TypeOf(v1.VirtualMachine{}), nil); p != nil {
		return nil, &decodeError{Path: p, Message: fmt.Sprintf("%s: %s", p, msg)}
	}
	return nil, &decodeError{Message: err.Error()}
}

// jsonKind names a JSON value kind as encoding/json reports it ("array",
// "number 5") with its article.
func jsonKind(v string) string {
	switch {
	case strings.HasPrefix(v, "array"):
		return "a list"
	case strings.HasPrefix(v, "object"):
		return "a mapping"
	case strings.HasPrefix(v, "number"):
		return "a number"
	case strings.HasPrefix(v, "bool"):
		return "a boolean"
	}
	return "a " + v
}

func goTypeToSchema(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer (" + t.Kind().String() + ")"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}

var quantityType = reflect.TypeOf(resource.Quantity{})

// findBadQuantity walks content alongside the Go type (by JSON tag, through
// inline structs) and returns the path of the first quantity that does not
// parse.
func findBadQuantity(v any, t reflect.Type, p manifest.Path) (manifest.Path, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == quantityType {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case nil:
			return nil, ""
		default:
			s = fmt.Sprint(x)
		}
		if _, err := resource.ParseQuantity(strings.TrimSpace(s)); err != nil {
			return p, fmt.Sprintf("%q is not a quantity (%v)", s, err)
		}
		return nil, ""
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, ""
		}
		for key, val := range sortedEntries(m) {
			if ft, ok := fieldType(t, key); ok {
				if bad, msg := findBadQuantity(val, ft, p.Child(manifest.Key(key))); bad != nil {
					return bad, msg
				}
			}
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return nil, ""
		}
		for i, val := range l {
			if bad, msg := findBadQuantity(val, t.Elem(), p.Child(manifest.Index(i))); bad != nil {
				return bad, msg
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, ""
		}
		for key, val := range sortedEntries(m) {
			if bad, msg := findBadQuantity(val, t.Elem(), p.Child(manifest.Key(key))); bad != nil {
				return bad, msg
			}
		}
	}
	return nil, ""
}

// fieldType finds the type of the field a JSON key decodes into, searching
// inline structs, with encoding/json's case-insensitive fallback.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	var fold reflect.Type
	var search func(t reflect.Type) reflect.Type
	search = func(t reflect.Type) reflect.Type {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, inline := jsonName(f)
			if inline {
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					if r := search(ft); r != nil {
						return r
					}
				}
				continue
			}
			if name == key {
				return f.Type
			}
			if fold == nil && strings.EqualFold(name, key) {
				fold = f.Type
			}
		}
		return nil
	}
	if r := search(t); r != nil {
		return r, true
	}
	return fold, fold != nil
}

// jsonName returns a struct field's JSON name, or inline=true for an
// embedded struct without one; "" for fields JSON skips.
func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ = strings.Cut(tag, ",")
	if name == "" && f.Anonymous {
		return "", true
	}
	if !f.IsExported() {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, false
}
