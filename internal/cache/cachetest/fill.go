// Package cachetest helps test the cache codecs of the engines.
package cachetest

import (
	"fmt"
	"reflect"
)

// Filler gives every exported field of a value a distinct value, by
// reflection, so that a field added to a type a codec encodes is filled
// without its test knowing it: a round trip through the codec then fails
// until the codec writes the field (or the test lists it in Skip).
type Filler struct {
	// Skip are fields left zero, as "Type.Field" (fields the codec
	// deliberately refuses or leaves out).
	Skip map[string]bool
	// Special fills values of the types it names itself (a type whose
	// fields are alternatives, like a path segment that is a key or an
	// index): it gets a number to make the value distinct.
	Special map[reflect.Type]func(n int) reflect.Value
	n       int
}

// Fill fills the value ptr points to.
func (f *Filler) Fill(ptr any) { f.fill(reflect.ValueOf(ptr).Elem(), "") }

func (f *Filler) fill(v reflect.Value, owner string) {
	f.n++
	if make, ok := f.Special[v.Type()]; ok {
		v.Set(make(f.n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.n))
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		v.SetInt(int64(f.n))
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		v.SetUint(uint64(f.n))
	case reflect.Float64, reflect.Float32:
		v.SetFloat(float64(f.n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("value%d", f.n)))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), owner)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			f.fill(v.Index(i), owner)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, owner)
			f.fill(e, owner)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() && !f.Skip[t.Name()+"."+sf.Name] {
				f.fill(v.Field(i), t.Name())
			}
		}
	default:
		panic(fmt.Sprintf("cachetest: %s (in %s) has kind %s: teach the Filler, and check the codec writes it", v.Type(), owner, v.Kind()))
	}
}
