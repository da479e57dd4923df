package render

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxExpandedBytes bounds what parameter substitution writes for one
// Template (the API server refuses objects over about 1.5 MB), and
// maxSubstitutionWork the bytes it scans: a parameter of a megabyte used
// two thousand times in a 1 MB file is two gigabytes, and oc's
// substitution, which plumb follows, rescans the string for each
// reference.
const (
	maxExpandedBytes    = 32 << 20
	maxSubstitutionWork = 256 << 20
)

// expansion substitutes one Template's parameters, within the bounds.
type expansion struct {
	values map[string]string
	// written and scanned count toward maxExpandedBytes and
	// maxSubstitutionWork; err is set when either is passed, and from then
	// on nothing more is substituted.
	written, scanned int
	err              error
}

// substitute replaces parameter references in one string as oc process
// does. The second result is false when the string was exactly ${{NAME}}:
// the value is then decoded as JSON (a number, a boolean, an object).
func (x *expansion) substitute(in string) (string, bool) {
	if x.err != nil {
		return in, true
	}
	if m := nonStringParamExp.FindStringSubmatch(in); m != nil {
		if v, ok := x.values[m[1]]; ok {
			x.wrote(len(v))
			return v, false
		}
	}
	matches := stringParamExp.FindAllStringSubmatchIndex(in, -1)
	if len(matches) == 0 {
		return in, true
	}
	// oc replaces, for each reference in turn, the first occurrence of its
	// text in the string as substituted so far. When no value holds a '$',
	// that is the reference itself, and one pass gives the same result in
	// linear time.
	rescan := false
	for _, m := range matches {
		if v, ok := x.values[in[m[2]:m[3]]]; ok && strings.Contains(v, "$") {
			rescan = true
			break
		}
	}
	if !rescan {
		var b strings.Builder
		last := 0
		for _, m := range matches {
			v, ok := x.values[in[m[2]:m[3]]]
			if !ok {
				continue
			}
			if x.wrote(m[0] - last + len(v)); x.err != nil {
				return in, true
			}
			b.WriteString(in[last:m[0]])
			b.WriteString(v)
			last = m[1]
		}
		b.WriteString(in[last:])
		return b.String(), true
	}
	out := in
	for _, m := range matches {
		ref := in[m[0]:m[1]]
		v, ok := x.values[in[m[2]:m[3]]]
		if !ok {
			continue
		}
		x.scanned += len(out)
		if x.wrote(len(v)); x.err == nil && x.scanned > maxSubstitutionWork {
			x.err = fmt.Errorf("parameter substitution scans more than %d MiB: fewer references to parameters whose values hold '$'", maxSubstitutionWork>>20)
		}
		if x.err != nil {
			return in, true
		}
		out = strings.Replace(out, ref, v, 1)
	}
	return out, true
}

// wrote counts n bytes written.
func (x *expansion) wrote(n int) {
	x.written += n
	if x.err == nil && x.written > maxExpandedBytes {
		x.err = fmt.Errorf("parameter substitution writes more than %d MiB (a large value referenced many times): "+
			"reference large values less often, or put them in the objects directly", maxExpandedBytes>>20)
	}
}

// substituteValue substitutes in every string of a value tree, map keys
// included.
func (x *expansion) substituteValue(v any) any {
	switch t := v.(type) {
	case string:
		s, asString := x.substitute(t)
		if asString {
			return s
		}
		var decoded any
		if err := json.Unmarshal([]byte(s), &decoded); err != nil {
			return s
		}
		return jsonCompatible(decoded)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			nk, _ := x.substitute(k)
			out[nk] = x.substituteValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = x.substituteValue(e)
		}
		return out
	}
	return v
}
