// Package redact keeps the tokens the process knows out of everything it
// writes or sends. In CI the environment holds the job's GitHub token and
// the runner's own tokens, and actions/checkout writes the token into the
// checkout's .git/config: a pull request that gets plumb to quote either
// would have the token posted into the pull request, where the runner's
// log masking does not apply. So every sink — stdout and stderr, report
// files, the job summary and step outputs, cache entries, fix edits,
// request bodies to GitHub — passes what it writes through the Set built
// once in main from the environment, and every form of a token becomes
// Mask.
//
// This is defence in depth: the readers refuse .git, and manifest's
// credential detection redacts credential-shaped text (ghp_ tokens,
// Authorization headers, ...) in what the engines read. The Set catches
// the known tokens in whatever form wherever they come from.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
)

// Mask replaces every form of a token.
const Mask = "***"

// MinLen is the shortest token the Set redacts: a shorter value (an empty
// or placeholder variable) would turn ordinary text into Mask.
const MinLen = 8

// Names are the environment variables that hold tokens: the action's
// token input, the job's GitHub token (GITHUB_TOKEN, and GH_TOKEN, which
// the gh CLI reads and workflows commonly set to it), and the runner's
// tokens for its own services and for OIDC tokens.
var Names = []string{"INPUT_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"}

// Set is the tokens to redact, each in every form it may be written in.
// The nil Set and the empty Set redact nothing.
type Set struct {
	// forms are the strings to replace, longest first, without
	// duplicates.
	forms []string
	// maxLen is the length of the longest form.
	maxLen int
	// grams are the forms by every four bytes they hold (with the offset
	// of the four bytes), and filter a bit per hash of them. Every form
	// holds at least step+3 bytes, so of any step consecutive positions
	// of a text, one starts four bytes inside each occurrence: find
	// looks at every step-th position only, and most cost a load and a
	// bit test.
	grams  map[uint32][]gram
	filter [1 << filterBits / 64]uint64
	step   int
	// tokens are the values the set was made of (With adds to them).
	tokens []string
}

// With is the set with more tokens: a credential plumb learns after main
// installed the process's set (a chart repository's password).
func (s *Set) With(tokens ...string) *Set {
	var have []string
	if s != nil {
		have = s.tokens
	}
	return New(append(slices.Clone(have), tokens...)...)
}

// gram is four bytes of a form, at off.
type gram struct {
	form string
	off  int
}

// filterBits is the size of the grams filter, in bits of the hash.
const filterBits = 16

// New returns the Set of tokens; values shorter than MinLen (after
// trimming space) are left out.
func New(tokens ...string) *Set {
	seen := map[string]bool{}
	s := &Set{tokens: tokens}
	for _, t := range tokens {
		t = strings.TrimSpace(t)
		if len(t) < MinLen {
			continue
		}
		for _, f := range Forms(t) {
			if !seen[f] {
				seen[f] = true
				s.forms = append(s.forms, f)
			}
		}
	}
	slices.SortFunc(s.forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	if len(s.forms) == 0 {
		return s
	}
	s.maxLen = len(s.forms[0])
	s.step = len(s.forms[len(s.forms)-1]) - 3 // the shortest holds MinLen bytes at least
	s.grams = map[uint32][]gram{}
	for _, f := range s.forms {
		for off := 0; off+4 <= len(f); off++ {
			q := quad(f, off)
			s.grams[q] = append(s.grams[q], gram{form: f, off: off})
			bit := hash(q)
			s.filter[bit/64] |= 1 << (bit % 64)
		}
	}
	return s
}

// quad is the four bytes of text at i, little-endian.
func quad[T string | []byte](text T, i int) uint32 {
	return uint32(text[i]) | uint32(text[i+1])<<8 | uint32(text[i+2])<<16 | uint32(text[i+3])<<24
}

func hash(q uint32) uint32 { return q * 2654435761 >> (32 - filterBits) }

// FromEnv returns the Set of the tokens in the environment (Names).
func FromEnv(lookup func(string) (string, bool)) *Set {
	var tokens []string
	for _, n := range Names {
		if v, ok := lookup(n); ok {
			tokens = append(tokens, v)
		}
	}
	return New(tokens...)
}

// Forms are the ways a token t may be written: as it is, JSON-escaped
// (with and without HTML escapes), URL-encoded, and base64-encoded in the
// standard and URL alphabets — at each of the three alignments a token
// can have inside a longer encoded text (base64 of
// "x-access-token:TOKEN", the basic credentials actions/checkout writes
// into .git/config, is one), as the characters that depend on the token's
// bytes alone, so that whatever comes before or after it does not change
// them — each also URL-encoded.
func Forms(t string) []string {
	forms := []string{t, url.QueryEscape(t), url.PathEscape(t), jsonEscaped(t, true), jsonEscaped(t, false)}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for align := 0; align < 3; align++ {
			core := base64Core(enc, t, align)
			forms = append(forms, core, url.QueryEscape(core))
		}
	}
	return forms
}

// jsonEscaped is t as a JSON string holds it, without the quotes.
func jsonEscaped(t string, html bool) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(html)
	_ = e.Encode(t) // a string always encodes
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:]
}

// base64Core is the part of the base64 encoding of t, preceded by align
// bytes, made of characters that only t's bits determine: character i
// encodes bits [6i, 6i+6) of the input, and t's are [8·align,
// 8·(align+len(t))).
func base64Core(enc *base64.Encoding, t string, align int) string {
	in := make([]byte, align, align+len(t))
	in = append(in, t...)
	out := enc.EncodeToString(in)
	start := (8*align + 5) / 6
	end := 8 * (align + len(t)) / 6
	return out[start:end]
}

// Empty reports whether the Set redacts nothing.
func (s *Set) Empty() bool { return s == nil || len(s.forms) == 0 }

// String returns text with every form of every token replaced by Mask;
// text itself when it holds none.
func (s *Set) String(text string) string {
	if s.Empty() {
		return text
	}
	spans := s.spans(text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, sp := range spans {
		b.WriteString(text[last:sp[0]])
		b.WriteString(Mask)
		last = sp[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// Bytes is String for a byte slice; b itself when it holds no token.
func (s *Set) Bytes(b []byte) []byte {
	if !s.Contains(b) {
		return b
	}
	return []byte(s.String(string(b)))
}

// Contains reports whether b holds a form of a token.
func (s *Set) Contains(b []byte) bool {
	if s.Empty() {
		return false
	}
	found := false
	find(s, b, func(int, int) bool { found = true; return false })
	return found
}

// spans are the byte ranges of text that hold a form of a token, in
// order, overlapping and adjacent ones merged (two tokens written one
// into the other are both masked whole).
func (s *Set) spans(text string) [][2]int {
	var spans [][2]int
	find(s, text, func(start, end int) bool {
		spans = append(spans, [2]int{start, end})
		return true
	})
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if top := &merged[len(merged)-1]; sp[0] <= top[1] {
			top[1] = max(top[1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// find calls found with the range of every form in text (in no order, an
// occurrence maybe more than once) until it returns false.
func find[T string | []byte](s *Set, text T, found func(start, end int) bool) {
	for p := 0; p+4 <= len(text); p += s.step {
		q := quad(text, p)
		if bit := hash(q); s.filter[bit/64]&(1<<(bit%64)) == 0 {
			continue
		}
		for _, g := range s.grams[q] {
			start := p - g.off
			if start >= 0 && start+len(g.form) <= len(text) && string(text[start:start+len(g.form)]) == g.form {
				if !found(start, start+len(g.form)) {
					return
				}
			}
		}
	}
}

// process is the Set main installed.
var process atomic.Pointer[Set]

// Install makes s the process's Set (Process). main calls it once, before
// anything is written: the environment is the process's, and a sink that
// reads the Set from here cannot be left without it.
func Install(s *Set) { process.Store(s) }

// Process is the Set main installed; the empty Set before that (in tests
// of the sinks' packages, which run without the binary's environment).
func Process() *Set { return process.Load() }
