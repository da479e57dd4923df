package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The entry codec: a compact binary encoding of the values plumb caches.
// Integers are varints, strings and byte slices length-prefixed, and value
// trees (the JSON-compatible content of a rendered object: maps, lists,
// strings, int64, float64, bool, nil) tagged per node. Map keys are written
// sorted, so that one value always encodes to the same bytes.
//
// It is several times faster than encoding/gob or encoding/json on object
// trees (BenchmarkCodec), and decoding shares the strings it has met before
// (the keys "metadata", "name", "spec", ... of ten thousand objects are
// held once).

// Value tags.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagList
	tagMap
	// Go types that JSON-compatible trees do not use but engines' values
	// do; each keeps its own tag so that it reads back as the same type.
	tagGoInt
	tagStringList
	tagStringMap
)

// maxDepth bounds the nesting the decoder accepts: a corrupt entry must
// not recurse without end.
const maxDepth = 1000

// ErrCorrupt is returned when an entry does not decode.
var ErrCorrupt = errors.New("corrupt cache entry")

// Encoder appends values to a byte slice.
type Encoder struct {
	buf []byte
	// keys is scratch space for sorting map keys, used as a stack by
	// nested maps.
	keys []string
	// shared numbers the strings written since ShareStrings (nil: off).
	shared map[string]uint64
}

// ShareStrings makes every string written from now on that repeats one
// written before (since this call) a reference to it. It is for entries
// whose strings repeat many times — a whole revision's findings repeat
// their rules' help, titles, kinds and files thousands of times — and the
// decoder must call ShareStrings at the same point.
func (e *Encoder) ShareStrings() { e.shared = map[string]uint64{} }

// Bytes returns what was encoded.
func (e *Encoder) Bytes() []byte { return e.buf }

// Reset empties the encoder, keeping its memory for what comes next.
func (e *Encoder) Reset() { e.buf = e.buf[:0] }

// Len is how many bytes were encoded.
func (e *Encoder) Len() int { return len(e.buf) }

// Truncate drops what was encoded past the first n bytes (a value that
// failed to encode half way).
func (e *Encoder) Truncate(n int) { e.buf = e.buf[:n] }

// Uint writes an unsigned integer.
func (e *Encoder) Uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

// Int writes a signed integer.
func (e *Encoder) Int(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// Bool writes a boolean.
func (e *Encoder) Bool(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// String writes a string.
func (e *Encoder) String(s string) {
	if e.shared != nil {
		// Shared strings: a reference is its index, shifted, with the low
		// bit set; a first occurrence its length, shifted.
		if i, ok := e.shared[s]; ok {
			e.Uint(i<<1 | 1)
			return
		}
		e.shared[s] = uint64(len(e.shared))
		e.Uint(uint64(len(s)) << 1)
		e.buf = append(e.buf, s...)
		return
	}
	e.Uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// Raw writes a byte slice.
func (e *Encoder) Raw(b []byte) {
	e.Uint(uint64(len(b)))
	e.buf = append(e.buf, b...)
}

// Strings writes a list of strings.
func (e *Encoder) Strings(ss []string) {
	e.Uint(uint64(len(ss)))
	for _, s := range ss {
		e.String(s)
	}
}

// Value writes a JSON-compatible value tree. Other types are an error
// (the caller does not cache what it cannot write exactly).
func (e *Encoder) Value(v any) error {
	switch t := v.(type) {
	case nil:
		e.buf = append(e.buf, tagNil)
	case bool:
		if t {
			e.buf = append(e.buf, tagTrue)
		} else {
			e.buf = append(e.buf, tagFalse)
		}
	case int64:
		e.buf = append(e.buf, tagInt)
		e.Int(t)
	case float64:
		e.buf = append(e.buf, tagFloat)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(t))
	case string:
		e.buf = append(e.buf, tagString)
		e.String(t)
	case []any:
		e.buf = append(e.buf, tagList)
		e.Uint(uint64(len(t)))
		for _, x := range t {
			if err := e.Value(x); err != nil {
				return err
			}
		}
	case map[string]any:
		e.buf = append(e.buf, tagMap)
		e.Uint(uint64(len(t)))
		start := len(e.keys)
		for k := range t {
			e.keys = append(e.keys, k)
		}
		keys := e.keys[start:]
		slices.Sort(keys)
		for _, k := range keys {
			e.String(k)
			if err := e.Value(t[k]); err != nil {
				return err
			}
		}
		clear(keys)
		e.keys = e.keys[:start]
	case int:
		e.buf = append(e.buf, tagGoInt)
		e.Int(int64(t))
	case []string:
		e.buf = append(e.buf, tagStringList)
		e.Bool(t != nil)
		e.Strings(t)
	case map[string]string:
		e.buf = append(e.buf, tagStringMap)
		e.Bool(t != nil)
		e.Uint(uint64(len(t)))
		start := len(e.keys)
		for k := range t {
			e.keys = append(e.keys, k)
		}
		keys := e.keys[start:]
		slices.Sort(keys)
		for _, k := range keys {
			e.String(k)
			e.String(t[k])
		}
		clear(keys)
		e.keys = e.keys[:start]
	default:
		return fmt.Errorf("cache: cannot encode a value of type %T", v)
	}
	return nil
}

// Decoder reads what an Encoder wrote. Errors are sticky: after the first,
// every read returns a zero value and Err reports it.
type Decoder struct {
	buf    []byte
	pos    int
	err    error
	intern map[string]string
	// shared are the strings read since ShareStrings, in order; sharing
	// says whether it was called.
	shared  []string
	sharing bool
}

// ShareStrings reads what an Encoder wrote after its ShareStrings.
func (d *Decoder) ShareStrings() { d.shared, d.sharing = d.shared[:0], true }

// NewDecoder reads buf. Strings met twice share their memory.
func NewDecoder(buf []byte) *Decoder {
	return &Decoder{buf: buf, intern: map[string]string{}}
}

// Reset makes d read buf from its start, keeping the strings it has met
// (one decoder reads many small entries that share their strings).
func (d *Decoder) Reset(buf []byte) {
	d.buf, d.pos, d.err = buf, 0, nil
}

// Err is the first error met, ErrCorrupt wrapped.
func (d *Decoder) Err() error { return d.err }

// Done reports an error unless every byte was read without one.
func (d *Decoder) Done() error {
	if d.err == nil && d.pos != len(d.buf) {
		d.fail("trailing bytes")
	}
	return d.err
}

// Fail marks the input corrupt (a reader found what cannot be).
func (d *Decoder) Fail(what string) { d.fail(what) }

func (d *Decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", ErrCorrupt, what, d.pos)
	}
	d.pos = len(d.buf)
}

// Uint reads an unsigned integer.
func (d *Decoder) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad unsigned integer")
		return 0
	}
	d.pos += n
	return v
}

// Int reads a signed integer.
func (d *Decoder) Int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad integer")
		return 0
	}
	d.pos += n
	return v
}

// Len reads a count of items, each at least min bytes long; a count the
// remaining bytes cannot hold is corruption (and never allocated).
func (d *Decoder) Len(min int) int {
	n := d.Uint()
	if d.err == nil && n > uint64(len(d.buf)-d.pos)/uint64(max(min, 1)) {
		d.fail("count past the end")
		return 0
	}
	return int(n)
}

// Bool reads a boolean.
func (d *Decoder) Bool() bool {
	if d.err != nil {
		return false
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] > 1 {
		d.fail("bad boolean")
		return false
	}
	d.pos++
	return d.buf[d.pos-1] == 1
}

// raw reads a length-prefixed byte slice without copying it.
func (d *Decoder) raw() []byte {
	n := d.Len(1)
	if d.err != nil {
		return nil
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b
}

// RawView reads a byte slice without copying it: it shares the decoder's
// input, and is valid as long as that is.
func (d *Decoder) RawView() []byte { return d.raw() }

// Raw reads a byte slice (a copy).
func (d *Decoder) Raw() []byte {
	b := d.raw()
	if b == nil {
		return nil
	}
	return slices.Clone(b)
}

// String reads a string.
func (d *Decoder) String() string {
	if d.sharing {
		return d.sharedString()
	}
	b := d.raw()
	if len(b) == 0 {
		return ""
	}
	if len(b) > 64 {
		return string(b)
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	d.intern[s] = s
	return s
}

// sharedString reads a string written after ShareStrings.
func (d *Decoder) sharedString() string {
	v := d.Uint()
	if d.err != nil {
		return ""
	}
	if v&1 == 1 {
		if v>>1 >= uint64(len(d.shared)) {
			d.fail("a reference to a string not read yet")
			return ""
		}
		return d.shared[v>>1]
	}
	if v>>1 > uint64(len(d.buf)-d.pos) {
		d.fail("string past the end")
		return ""
	}
	n := int(v >> 1)
	s := string(d.buf[d.pos : d.pos+n])
	d.pos += n
	d.shared = append(d.shared, s)
	return s
}

// skipString reads past a string.
func (d *Decoder) skipString() {
	if d.sharing {
		d.sharedString() // later references count it
		return
	}
	d.raw()
}

// Strings reads a list of strings.
func (d *Decoder) Strings() []string {
	n := d.Len(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.String()
	}
	return out
}

// Value reads a value tree.
func (d *Decoder) Value() any { return d.value(0) }

func (d *Decoder) value(depth int) any {
	if d.err != nil {
		return nil
	}
	if d.pos >= len(d.buf) || depth > maxDepth {
		d.fail("value past the end or too deep")
		return nil
	}
	tag := d.buf[d.pos]
	d.pos++
	switch tag {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return d.Int()
	case tagFloat:
		if len(d.buf)-d.pos < 8 {
			d.fail("float past the end")
			return nil
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(d.buf[d.pos:]))
		d.pos += 8
		return f
	case tagString:
		return d.String()
	case tagList:
		n := d.Len(1)
		out := make([]any, n)
		for i := range out {
			out[i] = d.value(depth + 1)
		}
		return out
	case tagMap:
		n := d.Len(2)
		out := make(map[string]any, n)
		for range n {
			k := d.String()
			out[k] = d.value(depth + 1)
		}
		return out
	case tagGoInt:
		return int(d.Int())
	case tagStringList:
		present := d.Bool()
		ss := d.Strings()
		if present && ss == nil {
			ss = []string{}
		}
		if !present {
			return []string(nil)
		}
		return ss
	case tagStringMap:
		present := d.Bool()
		n := d.Len(2)
		if !present {
			return map[string]string(nil)
		}
		out := make(map[string]string, n)
		for range n {
			k := d.String()
			out[k] = d.String()
		}
		return out
	}
	d.fail("unknown value tag")
	return nil
}

// Offset is how many bytes of the input have been read.
func (d *Decoder) Offset() int { return d.pos }

// Skip reads past a byte slice, or a string written without
// ShareStrings, without keeping it.
func (d *Decoder) Skip() { d.raw() }

// SkipValue reads past a value tree without building it: for readers that
// want other parts of an entry (it costs no allocation).
func (d *Decoder) SkipValue() { d.skipValue(0) }

func (d *Decoder) skipValue(depth int) {
	if d.err != nil {
		return
	}
	if d.pos >= len(d.buf) || depth > maxDepth {
		d.fail("value past the end or too deep")
		return
	}
	tag := d.buf[d.pos]
	d.pos++
	switch tag {
	case tagNil, tagFalse, tagTrue:
	case tagInt, tagGoInt:
		d.Int()
	case tagFloat:
		if len(d.buf)-d.pos < 8 {
			d.fail("float past the end")
			return
		}
		d.pos += 8
	case tagString:
		d.skipString()
	case tagList:
		for range d.Len(1) {
			d.skipValue(depth + 1)
		}
	case tagMap:
		for range d.Len(2) {
			d.skipString()
			d.skipValue(depth + 1)
		}
	case tagStringList:
		d.Bool()
		for range d.Len(1) {
			d.skipString()
		}
	case tagStringMap:
		d.Bool()
		for range d.Len(2) {
			d.skipString()
			d.skipString()
		}
	default:
		d.fail("unknown value tag")
	}
}

// Node kinds of a value tree, for readers that build a tree node by node
// (NextKind).
const (
	KindScalar = iota // anything but a list or a map
	KindList
	KindMap
)

// NextKind reports what the next value is without reading it.
func (d *Decoder) NextKind() int {
	if d.err != nil || d.pos >= len(d.buf) {
		return KindScalar // reading it fails as it should
	}
	switch d.buf[d.pos] {
	case tagList:
		return KindList
	case tagMap:
		return KindMap
	}
	return KindScalar
}

// ValueBytes returns the encoding of the next value without reading it
// (nil when it does not decode). Equal value trees encode to the same
// bytes, so a reader can recognise a subtree it has built before.
func (d *Decoder) ValueBytes() []byte {
	start := d.pos
	d.skipValue(0)
	end := d.pos
	d.pos = start
	if d.err != nil {
		return nil
	}
	return d.buf[start:end]
}

// ListStart reads the start of a list (NextKind KindList) and returns how
// many values follow.
func (d *Decoder) ListStart() int { return d.start(tagList, 1) }

// MapStart reads the start of a map (NextKind KindMap) and returns how
// many entries, each a String and a value, follow.
func (d *Decoder) MapStart() int { return d.start(tagMap, 2) }

func (d *Decoder) start(tag byte, min int) int {
	if d.err != nil {
		return 0
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != tag {
		d.fail("not the list or map expected")
		return 0
	}
	d.pos++
	return d.Len(min)
}

// Map reads a value tree that must be a map.
func (d *Decoder) Map() map[string]any {
	v := d.Value()
	m, ok := v.(map[string]any)
	if !ok && d.err == nil {
		d.fail("not a map")
	}
	return m
}
