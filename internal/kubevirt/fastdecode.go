package kubevirt

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// decodeContent decodes a rendered object's content (map[string]any,
// []any, string, int64, float64, bool, nil) into dst the way encoding/json
// decodes the same content written as JSON, without writing and re-reading
// it: the rendered VMs of a large repository decode several times faster.
// It covers what well-formed VMs contain and gives up (errFallback) on
// everything else — a value of the wrong type, a key that matches a field
// only by case folding outside ASCII, two keys folding to one field — so
// that the caller can run encoding/json itself, with its exact result and
// error messages. Types with their own UnmarshalJSON (quantities, times)
// get their leaf as JSON.
func decodeContent(v any, dst reflect.Value) error {
	t := dst.Type()
	if hasUnmarshaler(t) {
		if v == nil && t.Kind() == reflect.Pointer {
			dst.SetZero()
			return nil
		}
		data, err := json.Marshal(v)
		if err != nil {
			return errFallback
		}
		if err := json.Unmarshal(data, dst.Addr().Interface()); err != nil {
			return errFallback
		}
		return nil
	}
	if v == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			dst.SetZero()
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return decodeContent(v, dst.Elem())
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return errFallback
		}
		info := structInfoOf(t)
		var used fieldSet
		for key, val := range m {
			i, ok := info.lookup(key)
			if !ok {
				if !isASCII(key) {
					return errFallback // Unicode case folding: let encoding/json decide
				}
				continue // a key the type does not declare is dropped
			}
			if !used.add(i) {
				return errFallback // the key order decides: let encoding/json do it
			}
			if err := decodeContent(val, dst.FieldByIndex(info.fields[i].index)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return errFallback
		}
		s := reflect.MakeSlice(t, len(l), len(l))
		for i, e := range l {
			if err := decodeContent(e, s.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			return errFallback
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(t, len(m)))
		}
		for key, val := range m {
			e := reflect.New(t.Elem()).Elem()
			if err := decodeContent(val, e); err != nil {
				return err
			}
			dst.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), e)
		}
		return nil
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return errFallback
		}
		dst.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return errFallback
		}
		dst.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := wholeNumber(v)
		if !ok || dst.OverflowInt(n) {
			return errFallback
		}
		dst.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := wholeNumber(v)
		if !ok || n < 0 || dst.OverflowUint(uint64(n)) {
			return errFallback
		}
		dst.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		var f float64
		switch x := v.(type) {
		case int64:
			f = float64(x)
		case float64:
			f = x
		default:
			return errFallback
		}
		if dst.OverflowFloat(f) {
			return errFallback
		}
		dst.SetFloat(f)
		return nil
	}
	return errFallback
}

// fieldSet records the fields an object has set; fields past the first
// 128 are not tracked (no type of the model has that many).
type fieldSet [2]uint64

// add marks field i and reports whether it was unmarked.
func (s *fieldSet) add(i int) bool {
	if i >= 128 {
		return true
	}
	bit := uint64(1) << (i % 64)
	if s[i/64]&bit != 0 {
		return false
	}
	s[i/64] |= bit
	return true
}

// errFallback asks the caller to decode with encoding/json.
var errFallback = errors.New("decode with encoding/json")

// wholeNumber accepts what encoding/json parses into an integer: a whole
// number (a float64 is written without a fraction when it has none).
func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) >= 1e21 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

func hasUnmarshaler(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		return hasUnmarshaler(t.Elem())
	}
	return reflect.PointerTo(t).Implements(unmarshalerType)
}

// structInfo is the JSON view of a struct type: its fields by JSON name,
// with inline (embedded) structs' fields promoted, as encoding/json sees
// them.
type structInfo struct {
	fields []jsonField
	exact  map[string]int
	folded map[string]int
}

type jsonField struct {
	name  string
	index []int
}

// lookup finds the field of a key: an exact name, else an ASCII
// case-insensitive match.
func (s *structInfo) lookup(key string) (int, bool) {
	if i, ok := s.exact[key]; ok {
		return i, true
	}
	i, ok := s.folded[strings.ToLower(key)]
	return i, ok
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if s, ok := structInfos.Load(t); ok {
		return s.(*structInfo)
	}
	s := &structInfo{exact: map[string]int{}, folded: map[string]int{}}
	// Breadth first, so that a shallower field shadows a promoted one; two
	// fields of one name at the same depth cancel out, as in encoding/json.
	type level struct {
		t     reflect.Type
		index []int
	}
	seen := map[string]int{} // name → depth
	cancelled := map[string]bool{}
	queue := []level{{t, nil}}
	for depth := 0; len(queue) > 0; depth++ {
		var next []level
		for _, l := range queue {
			for i := 0; i < l.t.NumField(); i++ {
				f := l.t.Field(i)
				index := append(append([]int(nil), l.index...), i)
				name, inline := jsonName(f)
				if inline {
					ft := f.Type
					if ft.Kind() == reflect.Struct && !hasUnmarshaler(ft) {
						next = append(next, level{ft, index})
						continue
					}
					if ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Struct {
						continue // not promoted here (no such fields in the model)
					}
					name = f.Name
				}
				if name == "" {
					continue
				}
				if d, ok := seen[name]; ok {
					if d == depth {
						cancelled[name] = true
					}
					continue
				}
				seen[name] = depth
				s.fields = append(s.fields, jsonField{name: name, index: index})
			}
		}
		queue = next
	}
	kept := s.fields[:0]
	for _, f := range s.fields {
		if !cancelled[f.name] {
			kept = append(kept, f)
		}
	}
	s.fields = kept
	for i, f := range s.fields {
		s.exact[f.name] = i
		if _, dup := s.folded[strings.ToLower(f.name)]; !dup {
			s.folded[strings.ToLower(f.name)] = i
		}
	}
	actual, _ := structInfos.LoadOrStore(t, s)
	return actual.(*structInfo)
}
