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
	// Point at the first field that does not fit the schema (keys in
	// order, list indexes included); encoding/json's own error names the
	// field without indexes, and a quantity's error names none.
	if p, msg := findMismatch(o.Content, reflect.TypeOf(v1.VirtualMachine{}), nil); p != nil {
		return nil, &decodeError{Path: p, Message: fmt.Sprintf("%s: %s", p, msg)}
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		p, perr := manifest.ParsePath(typeErr.Field)
		if perr != nil {
			p = nil
		}
		return nil, &decodeError{Path: p, Message: fmt.Sprintf("%s: %s where the VirtualMachine schema wants %s", typeErr.Field, jsonKind(typeErr.Value), goTypeToSchema(typeErr.Type))}
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
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer (" + t.Kind().String() + ")"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
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

// findMismatch walks content alongside the Go type (by JSON name, through
// inline structs, keys in order) and returns the path of the first value
// that the type cannot hold, and why.
func findMismatch(v any, t reflect.Type, p manifest.Path) (manifest.Path, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return nil, ""
	}
	if t == quantityType {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case int64, float64:
			s = fmt.Sprint(x)
		default:
			return p, fmt.Sprintf("%s where the VirtualMachine schema wants a quantity", contentKind(v))
		}
		if _, err := resource.ParseQuantity(strings.TrimSpace(s)); err != nil {
			return p, fmt.Sprintf("%q is not a quantity (%v)", s, err)
		}
		return nil, ""
	}
	if hasUnmarshaler(t) {
		return nil, "" // times, int-or-strings: encoding/json's message says it
	}
	mismatch := func() (manifest.Path, string) {
		return p, fmt.Sprintf("%s where the VirtualMachine schema wants %s", contentKind(v), goTypeToSchema(t))
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch()
		}
		for key, val := range sortedEntries(m) {
			if ft, ok := fieldType(t, key); ok {
				if bad, msg := findMismatch(val, ft, p.Child(manifest.Key(key))); bad != nil {
					return bad, msg
				}
			}
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return mismatch()
		}
		for i, val := range l {
			if bad, msg := findMismatch(val, t.Elem(), p.Child(manifest.Index(i))); bad != nil {
				return bad, msg
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return mismatch()
		}
		for key, val := range sortedEntries(m) {
			if bad, msg := findMismatch(val, t.Elem(), p.Child(manifest.Key(key))); bad != nil {
				return bad, msg
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return mismatch()
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return mismatch()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := wholeNumber(v)
		if !ok || reflect.New(t).Elem().OverflowInt(n) {
			return mismatch()
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := wholeNumber(v)
		if !ok || n < 0 || reflect.New(t).Elem().OverflowUint(uint64(n)) {
			return mismatch()
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			return mismatch()
		}
	}
	return nil, ""
}

// contentKind names a content value's kind with its article.
func contentKind(v any) string {
	switch x := v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "the number " + fmt.Sprint(x)
	case float64:
		return "the number " + fmt.Sprint(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
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
