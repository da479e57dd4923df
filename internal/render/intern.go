package render

import (
	"hash/maphash"
	"math"
	"math/bits"
	"reflect"
	"sync"
	"unsafe"

	"github.com/plumb-ci/plumb/internal/cache"
)

// interner makes the objects of one render share their identical parts.
// A repository of overlays over shared bases renders the same containers,
// probes, resources and security contexts once per overlay: on the
// 10,000-object benchmark corpus the rendered objects' content trees were
// the largest thing a run kept (48 of 100 MB after rendering), and most of
// it was copies. Values are interned bottom-up as they are read from
// krusty's output: a mapping or list whose entries are (already interned)
// identical to an earlier one's is replaced by that one, and so are equal
// strings and numbers, mapping keys included.
//
// Sharing makes rendered content immutable: a subtree may belong to many
// objects of many targets, so whoever changes an object's content must
// copy what it changes (the inspection rules copy the path they write;
// manifest.DeepCopy copies a whole tree). TestRenderedContentIsNotModified
// in package pipeline holds every stage to it.
//
// The table lives as long as the render; what it interned lives as long as
// the objects do.
type interner struct {
	seed   maphash.Seed
	shards [internShards]internShard
}

const internShards = 64

type internShard struct {
	mu sync.Mutex
	m  map[uint64]any
	// encoded are the mappings and lists read from the persistent cache,
	// by their encoding (decoded).
	encoded map[string]encodedValue
}

// encodedValue is an interned value read from the cache, with its hash.
type encodedValue struct {
	v any
	h uint64
}

func newInterner() *interner {
	in := &interner{seed: maphash.MakeSeed()}
	for i := range in.shards {
		in.shards[i].m = map[uint64]any{}
		in.shards[i].encoded = map[string]encodedValue{}
	}
	return in
}

// Kind tags keep values of different types that hash alike apart.
const (
	tagString uint64 = iota + 1
	tagInt
	tagFloat
	tagBool
	tagNull
	tagMap
	tagList
)

// mix folds x into h.
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	return bits.RotateLeft64(h*0xff51afd7ed558ccd, 31)
}

// share returns the interned value equal to v (whose hash is h), storing
// v when there is none. Values whose hash collides with a different value
// stay unshared.
func (in *interner) share(v any, h uint64) any {
	s := &in.shards[h%internShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.m[h]; ok {
		if identical(c, v) {
			return c
		}
		return v
	}
	s.m[h] = v
	return v
}

// key returns the interned copy of a mapping key.
func (in *interner) key(k string) string {
	h := mix(tagString, maphash.String(in.seed, k))
	return in.share(k, h).(string)
}

// scalar interns a scalar value and returns it with its hash.
func (in *interner) scalar(v any) (any, uint64) {
	var h uint64
	switch x := v.(type) {
	case string:
		h = mix(tagString, maphash.String(in.seed, x))
	case int64:
		h = mix(tagInt, uint64(x))
	case float64:
		h = mix(tagFloat, math.Float64bits(x))
	case bool:
		if x {
			return v, mix(tagBool, 1)
		}
		return v, mix(tagBool, 0)
	case nil:
		return nil, mix(tagNull, 0)
	default:
		return v, 0 // not a value type plumb's trees hold; never shared
	}
	return in.share(v, h), h
}

// entryHash is the hash one mapping entry adds to its mapping's; mappings
// sum them, so that equal mappings hash alike in any key order.
func (in *interner) entryHash(k string, child uint64) uint64 {
	return mix(mix(tagMap, maphash.String(in.seed, k)), child)
}

// mapping interns a mapping whose values are interned, given the sum of
// its entries' hashes.
func (in *interner) mapping(m map[string]any, sum uint64) (any, uint64) {
	h := mix(mix(tagMap, uint64(len(m))), sum)
	return in.share(m, h), h
}

// list interns a list whose items are interned, given their hashes folded
// in order.
func (in *interner) list(l []any, folded uint64) (any, uint64) {
	h := mix(mix(tagList, uint64(len(l))), folded)
	return in.share(l, h), h
}

// tree interns a tree that was built for this render and that nothing
// else holds yet (decoded from the persistent cache or from JSON): its
// mappings and lists are rewritten in place to hold interned values.
func (in *interner) tree(v any) (any, uint64) {
	switch x := v.(type) {
	case map[string]any:
		var sum uint64
		for k, e := range x {
			c, h := in.tree(e)
			x[k] = c
			sum += in.entryHash(k, h)
		}
		return in.mapping(x, sum)
	case []any:
		var folded uint64
		for i, e := range x {
			c, h := in.tree(e)
			x[i] = c
			folded = mix(folded, h)
		}
		return in.list(x, folded)
	}
	return in.scalar(v)
}

// decodedContent reads an object's content from the persistent cache's
// encoding, interned. The codec writes equal trees as equal bytes, so a
// mapping or list whose encoding was read before is that earlier value,
// found without building it: the overlays of shared bases repeat most of
// their objects' subtrees, and building each one only to find it in the
// table was most of what reading a warm cache allocated. A subtree read
// for the first time is built from interned parts and interned by value
// too (tree), so it is shared with what krusty's output gave.
func (in *interner) decodedContent(d *cache.Decoder) map[string]any {
	if d.NextKind() != cache.KindMap {
		d.Fail("an object's content that is not a mapping")
		return nil
	}
	v, _ := in.decoded(d, 0)
	m, _ := v.(map[string]any)
	return m
}

// decoded reads one value of an encoded tree (decodedContent). The
// encodings it keys by are views of the cache entries read, which nothing
// writes to: the table keeps them (a few MB on the benchmark corpus) as
// long as the render.
func (in *interner) decoded(d *cache.Decoder, depth int) (any, uint64) {
	kind := d.NextKind()
	if kind == cache.KindScalar || depth > maxTreeDepth {
		return in.scalar(d.Value())
	}
	enc := d.ValueBytes()
	if len(enc) == 0 {
		return nil, 0 // it does not decode; the caller's Done says so
	}
	key := unsafe.String(&enc[0], len(enc))
	s := &in.shards[maphash.String(in.seed, key)%internShards]
	s.mu.Lock()
	e, ok := s.encoded[key]
	s.mu.Unlock()
	if ok {
		d.SkipValue()
		return e.v, e.h
	}
	if kind == cache.KindMap {
		n := d.MapStart()
		m := make(map[string]any, n)
		var sum uint64
		for range n {
			k := d.String()
			c, h := in.decoded(d, depth+1)
			m[k] = c
			sum += in.entryHash(k, h)
		}
		e.v, e.h = in.mapping(m, sum)
	} else {
		l := make([]any, d.ListStart())
		var folded uint64
		for i := range l {
			c, h := in.decoded(d, depth+1)
			l[i] = c
			folded = mix(folded, h)
		}
		e.v, e.h = in.list(l, folded)
	}
	s.mu.Lock()
	s.encoded[key] = e
	s.mu.Unlock()
	return e.v, e.h
}

// maxTreeDepth bounds decoded's recursion; the codec refuses deeper trees
// anyway (Value fails past its own bound).
const maxTreeDepth = 1000

// content interns an object's content built for this render (tree).
func (in *interner) content(m map[string]any) map[string]any {
	c, _ := in.tree(m)
	return c.(map[string]any)
}

// within interns the values of a mapping that was built for this render
// and that nothing else holds yet, keeping the mapping itself (its
// provenance may hold it).
func (in *interner) within(m map[string]any) {
	for k, e := range m {
		m[k], _ = in.tree(e)
	}
}

// identical reports whether a and b are the same value, given that their
// parts are interned: mappings and lists are then identical when their
// entries are the very same values.
func identical(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !same(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// same reports whether two interned values are one: the same scalar, or
// the very same mapping or list.
func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (x == nil) == (y == nil) &&
			(len(x) == 0 || &x[0] == &y[0])
	}
	return identical(a, b)
}
