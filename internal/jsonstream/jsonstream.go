// Package jsonstream writes large JSON objects piece by piece, byte for
// byte as encoding/json's MarshalIndent writes them whole. A report over
// thousands of objects has sections of tens of megabytes; encoding one
// element at a time keeps only that element's bytes in memory instead of
// the section twice over (compact, then indented).
package jsonstream

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// Streamer is a value that writes its own indented JSON: exactly what
// json.MarshalIndent(v, prefix, indent) gives, without a trailing newline.
type Streamer interface {
	StreamJSON(w io.Writer, prefix, indent string) error
}

// List is a sequence a Stream field writes one element at a time without
// it being a slice: a list kept encoded, decoded element by element. It is
// written as [] when empty, never null.
type List interface {
	Len() int
	// Each calls yield with every element in order and stops at the
	// first error, which it returns.
	Each(yield func(elem any) error) error
}

// Field is one key of an object, in output order. With Stream set, Value
// must be a slice or a List, written one element at a time.
type Field struct {
	Key    string
	Value  any
	Stream bool
}

// WriteObject writes the object of fields as json.MarshalIndent writes a
// struct with those fields (in that order, none omitted) at prefix.
func WriteObject(w io.Writer, prefix, indent string, fields []Field) error {
	if len(fields) == 0 {
		_, err := io.WriteString(w, "{}")
		return err
	}
	inner := prefix + indent
	if _, err := io.WriteString(w, "{\n"); err != nil {
		return err
	}
	for i, f := range fields {
		key, err := json.Marshal(f.Key)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s%s: ", inner, key); err != nil {
			return err
		}
		if f.Stream {
			err = writeSlice(w, inner, indent, f.Value)
		} else {
			err = writeValue(w, inner, indent, f.Value)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.Key, err)
		}
		sep := ",\n"
		if i == len(fields)-1 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, prefix+"}")
	return err
}

// writeSlice writes a slice one element at a time: null for a nil slice
// and [] for an empty one, as MarshalIndent does.
func writeSlice(w io.Writer, prefix, indent string, v any) error {
	if l, ok := v.(List); ok {
		return writeList(w, prefix, indent, l)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return fmt.Errorf("jsonstream: %T is not a slice", v)
	}
	if rv.IsNil() {
		_, err := io.WriteString(w, "null")
		return err
	}
	if rv.Len() == 0 {
		_, err := io.WriteString(w, "[]")
		return err
	}
	inner := prefix + indent
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i := 0; i < rv.Len(); i++ {
		if _, err := io.WriteString(w, inner); err != nil {
			return err
		}
		elem := rv.Index(i)
		e := elem.Interface()
		if _, ok := e.(Streamer); !ok && elem.CanAddr() {
			if s, ok := elem.Addr().Interface().(Streamer); ok {
				e = s
			}
		}
		if err := writeValue(w, inner, indent, e); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		sep := ",\n"
		if i == rv.Len()-1 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, prefix+"]")
	return err
}

// writeList writes a List one element at a time, as MarshalIndent writes
// the slice of its elements.
func writeList(w io.Writer, prefix, indent string, l List) error {
	n := l.Len()
	if n == 0 {
		_, err := io.WriteString(w, "[]")
		return err
	}
	inner := prefix + indent
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	i := 0
	err := l.Each(func(e any) error {
		if _, err := io.WriteString(w, inner); err != nil {
			return err
		}
		if err := writeValue(w, inner, indent, e); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		i++
		sep := ",\n"
		if i == n {
			sep = "\n"
		}
		_, err := io.WriteString(w, sep)
		return err
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, prefix+"]")
	return err
}

// writeValue writes one value at prefix: through its own StreamJSON, or
// encoded whole.
func writeValue(w io.Writer, prefix, indent string, v any) error {
	if s, ok := v.(Streamer); ok && !isNilPointer(v) {
		return s.StreamJSON(w, prefix, indent)
	}
	b, err := json.MarshalIndent(v, prefix, indent)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
