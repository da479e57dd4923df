package rules

import (
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// MaskMode is the mask_secrets setting (Ironic's [inspection_rules]
// mask_secrets): whether rules read secrets as "***".
type MaskMode string

const (
	// MaskAlways masks secrets for every rule (the default).
	MaskAlways MaskMode = "always"
	// MaskNever shows rules everything.
	MaskNever MaskMode = "never"
	// MaskSensitive shows secrets to rules marked sensitive only.
	MaskSensitive MaskMode = "sensitive"
)

// ParseMaskMode validates a mask_secrets value ("" is the default).
func ParseMaskMode(s string) (MaskMode, bool) {
	switch m := MaskMode(s); m {
	case "":
		return MaskAlways, true
	case MaskAlways, MaskNever, MaskSensitive:
		return m, true
	}
	return "", false
}

// masks reports whether a rule reads masked data under this mode.
func (m MaskMode) masks(r *Rule) bool {
	switch m {
	case MaskNever:
		return false
	case MaskSensitive:
		return !r.Sensitive
	}
	return true
}

// Masked is what a rule reads instead of a secret (Ironic's value).
const Masked = "***"

// DefaultMaskedKeys are the mapping keys whose values are secret at any
// depth: Ironic's password, auth_token and bmc_password, plus the usual
// names of credentials in Kubernetes configuration. Matching ignores case.
var DefaultMaskedKeys = []string{
	"password", "passwd", "auth_token", "bmc_password", "token",
	"client_secret", "clientSecret", "api_key", "apiKey",
}

// masker hides secrets from what rules read: the values of masked keys at
// any depth, and every value under data and stringData of a Secret.
type masker struct {
	keys []string
	// byLen are the keys by length (shorter than maxIndexedKey): every
	// mapping key a rule reads or the masker walks is looked up, and few
	// masked keys have its length.
	byLen [maxIndexedKey][]string
}

// maxIndexedKey bounds the lengths masker.byLen indexes.
const maxIndexedKey = 32

func newMasker(extra []string) *masker {
	keys := slices.Clone(DefaultMaskedKeys)
	for _, k := range extra {
		if k != "" && !slices.ContainsFunc(keys, func(x string) bool { return strings.EqualFold(x, k) }) {
			keys = append(keys, k)
		}
	}
	m := &masker{keys: keys}
	for _, k := range keys {
		if len(k) < maxIndexedKey {
			m.byLen[len(k)] = append(m.byLen[len(k)], k)
		}
	}
	return m
}

func (m *masker) isMaskedKey(k string) bool {
	candidates := m.keys
	if len(k) < maxIndexedKey {
		candidates = m.byLen[len(k)]
	}
	for _, x := range candidates {
		if len(x) == len(k) && strings.EqualFold(x, k) {
			return true
		}
	}
	return false
}

// maskLevel says what a value is, for masking.
type maskLevel uint8

const (
	levelPlain      maskLevel = iota
	levelSecretRoot           // a Secret object: its data and stringData hold secrets
	levelSecretData           // the data or stringData mapping of a Secret
	levelSecret               // a value inside it: entirely secret
)

// child returns the level of the value under key k of a value at level l.
func (l maskLevel) child(k string) maskLevel {
	switch l {
	case levelSecretRoot:
		if k == "data" || k == "stringData" || k == "binaryData" {
			return levelSecretData
		}
	case levelSecretData, levelSecret:
		return levelSecret
	}
	return levelPlain
}

// tree returns v with secrets replaced by Masked; v itself is returned when
// there is nothing to mask, so reads cost no copy.
func (m *masker) tree(v any, l maskLevel) any {
	out, _ := m.maskTree(v, l)
	return out
}

func (m *masker) maskTree(v any, l maskLevel) (any, bool) {
	if l == levelSecret {
		return Masked, true
	}
	switch t := v.(type) {
	case map[string]any:
		return manifest.RewriteMap(t, func(k string, e any) (any, bool) {
			if m.isMaskedKey(k) {
				return Masked, true
			}
			return m.maskTree(e, l.child(k))
		})
	case []any:
		out, changed := manifest.RewriteList(t, func(e any) (any, bool) { return m.maskTree(e, levelPlain) })
		if changed {
			return out, true
		}
		// v itself: returning the list would box it anew, an
		// allocation per list read.
	}
	return v, false
}

// redactor removes secret values from text that leaves the engine (finding
// messages, explanations, the report), whatever the masking mode: Secret
// values never appear in any output.
type redactor struct {
	r *strings.Replacer
	// shortest is the length of the shortest secret: a shorter text holds
	// none.
	shortest int
	// seen are texts already redacted, and what became of them: the
	// report repeats the same arguments and values (a target's namespace,
	// an image) on many objects. At most maxRedactMemo of them.
	seen     sync.Map
	seenSize atomic.Int64
}

// maxRedactMemo bounds the texts a redactor remembers; maxRedactMemoLen
// the length of one.
const (
	maxRedactMemo    = 1 << 14
	maxRedactMemoLen = 256
)

// minSecretLen is the shortest value the redactor removes: shorter values
// ("1", "yes") occur everywhere and are no secret worth hiding.
const minSecretLen = 4

// redactSource is a content tree the redactor collects secrets from, with
// its manifest.SecretPaths when they are known (a subject computed them).
type redactSource struct {
	content    map[string]any
	paths      []manifest.Path
	pathsKnown bool
}

// newRedactor collects the secret values of Secret objects (raw and
// base64-decoded), the other values manifest.SecretPaths names, and the
// values of masked keys in the given content trees, on workers.
func newRedactor(m *masker, sources []redactSource, extra []string, maskedKeyValues bool, workers int) *redactor {
	found := make([][]string, len(sources))
	parallel.ForEach(workers, len(sources), func(i int) {
		found[i] = m.secretsOf(sources[i], maskedKeyValues)
	})
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minSecretLen && s != Masked && s != manifest.Redacted {
			seen[s] = true
		}
	}
	for _, f := range found {
		for _, s := range f {
			add(s)
		}
	}
	for _, s := range extra {
		add(s)
	}
	if len(seen) == 0 {
		return &redactor{}
	}
	vals := make([]string, 0, len(seen))
	for s := range seen {
		vals = append(vals, s)
	}
	// Longest first, so a secret that contains another is removed whole.
	slices.SortFunc(vals, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(vals))
	for _, s := range vals {
		pairs = append(pairs, s, manifest.Redacted)
	}
	// vals is sorted longest first.
	return &redactor{r: strings.NewReplacer(pairs...), shortest: len(vals[len(vals)-1])}
}

// secretsOf lists the values of one content tree the redactor removes
// (the redactor drops the short ones).
func (m *masker) secretsOf(src redactSource, maskedKeyValues bool) []string {
	var out []string
	c := src.content
	if manifest.IsSecret(c) {
		for _, f := range []string{"data", "stringData", "binaryData"} {
			fm, _ := c[f].(map[string]any)
			for _, v := range fm {
				s, ok := v.(string)
				if !ok {
					continue
				}
				out = append(out, s)
				if f != "stringData" {
					if b, err := base64.StdEncoding.DecodeString(s); err == nil && utf8.Valid(b) {
						out = append(out, string(b), strings.TrimSpace(string(b)))
					}
				}
			}
		}
	}
	// The other values plumb never prints: credential keys of a
	// ConfigMap, credential environment variables, last-applied
	// annotations that repeat them.
	if src.pathsKnown {
		out = append(out, manifest.SecretValuesAt(c, src.paths)...)
	} else {
		out = append(out, manifest.SecretValues(c)...)
	}
	if maskedKeyValues {
		var walkKeys func(v any)
		walkKeys = func(v any) {
			switch t := v.(type) {
			case map[string]any:
				for k, e := range t {
					if s, ok := e.(string); ok && m.isMaskedKey(k) {
						out = append(out, s)
					}
					walkKeys(e)
				}
			case []any:
				for _, e := range t {
					walkKeys(e)
				}
			}
		}
		walkKeys(c)
	}
	return out
}

func lookupString(c map[string]any, p manifest.Path) (string, bool) {
	v, _ := manifest.Lookup(c, p)
	s, ok := v.(string)
	return s, ok
}

// text redacts a string; it allocates only when there is something to
// redact.
func (r *redactor) text(s string) string {
	if r == nil || r.r == nil || len(s) < r.shortest {
		return s
	}
	if len(s) > maxRedactMemoLen {
		return r.replace(s)
	}
	if out, ok := r.seen.Load(s); ok {
		return out.(string)
	}
	out := r.replace(s)
	if r.seenSize.Load() < maxRedactMemo {
		if _, loaded := r.seen.LoadOrStore(s, out); !loaded {
			r.seenSize.Add(1)
		}
	}
	return out
}

// replace redacts a string with the replacer.
func (r *redactor) replace(s string) string {
	w := diffWriters.Get().(*diffWriter)
	*w = diffWriter{orig: s, buf: w.buf[:0]}
	_, _ = r.r.WriteString(w, s) // a diffWriter never fails
	out := s
	if w.changed {
		out = string(w.buf)
	}
	w.orig = ""
	diffWriters.Put(w)
	return out
}

var diffWriters = sync.Pool{New: func() any { return new(diffWriter) }}

// diffWriter receives the replacer's output and builds a new string only
// from the first difference with the original on.
type diffWriter struct {
	orig    string
	off     int
	changed bool
	buf     []byte
}

func (w *diffWriter) WriteString(p string) (int, error) {
	if !w.changed {
		if strings.HasPrefix(w.orig[w.off:], p) {
			w.off += len(p)
			return len(p), nil
		}
		w.changed = true
		w.buf = append(w.buf[:0], w.orig[:w.off]...)
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *diffWriter) Write(p []byte) (int, error) { return w.WriteString(string(p)) }

// value redacts every string in a value tree; the tree itself is returned
// when nothing changes, a copy otherwise.
func (r *redactor) value(v any) any {
	out, _ := r.redactTree(v)
	return out
}

func (r *redactor) redactTree(v any) (any, bool) {
	if r == nil || r.r == nil {
		return v, false
	}
	switch t := v.(type) {
	case string:
		s := r.text(t)
		if s == t {
			return v, false // no new interface value: no allocation
		}
		return s, true
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			ne, changed := r.redactTree(e)
			nk := r.text(k)
			if !changed && nk == k {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, e2 := range t {
					out[k2] = e2
				}
			}
			delete(out, k)
			out[nk] = ne
		}
		if out != nil {
			return out, true
		}
	case []any:
		if out, changed := manifest.RewriteList(t, r.redactTree); changed {
			return out, true
		}
	}
	return v, false
}
