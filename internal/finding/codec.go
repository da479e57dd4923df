package finding

import (
	"errors"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// The cache codec of findings, for analyzers that keep their results for a
// render target between runs. It writes every field an analyzer sets,
// Key included (which JSON leaves out); what later stages add — a status,
// a suppression, the fix stage's edits — is refused, since a cached
// finding must be the analyzer's own output.

// errNotAnalyzerOutput refuses a finding later stages have changed.
var errNotAnalyzerOutput = errors.New("finding: only an analyzer's own findings are cached")

// EncodeFindings writes findings.
func EncodeFindings(e *cache.Encoder, fs []Finding) error {
	e.Uint(uint64(len(fs)))
	for i := range fs {
		if err := encodeFinding(e, &fs[i]); err != nil {
			return err
		}
	}
	return nil
}

func encodeFinding(e *cache.Encoder, f *Finding) error {
	if f.Status != "" || f.Side != "" || f.Suppressed != nil || (f.Fix != nil && (len(f.Fix.Edits) > 0 || f.Fix.Joint != nil || f.Fix.Span != nil || f.Fix.NoEdit != "" || f.Fix.ObjectValue)) {
		return errNotAnalyzerOutput
	}
	e.Strings([]string{f.Fingerprint, f.Source, f.RuleID, f.Title, f.Message, f.Help, f.Diff, f.Key})
	e.Int(int64(f.Level))
	EncodeObjectID(e, f.Object)
	EncodePath(e, f.Path)
	EncodeLocation(e, f.Location)
	e.Uint(uint64(len(f.Related)))
	for _, r := range f.Related {
		EncodeLocation(e, r.Location)
		e.String(r.Message)
	}
	e.Bool(f.InputError)
	e.Bool(f.ConfigError)
	e.Bool(f.Tags != nil)
	e.Strings(f.Tags)
	e.Bool(f.Fix != nil)
	if f.Fix != nil {
		e.String(f.Fix.Description)
		e.Bool(f.Fix.Changes != nil)
		e.Uint(uint64(len(f.Fix.Changes)))
		for _, c := range f.Fix.Changes {
			e.String(c.Op)
			EncodePath(e, c.Path)
			if err := e.Value(c.Value); err != nil {
				return err
			}
			e.String(c.To)
		}
	}
	return nil
}

// DecodeFindings reads what EncodeFindings wrote.
func DecodeFindings(d *cache.Decoder) []Finding {
	n := d.Len(16)
	if n == 0 {
		return nil
	}
	out := make([]Finding, n)
	for i := range out {
		decodeFinding(d, &out[i])
	}
	return out
}

func decodeFinding(d *cache.Decoder, f *Finding) {
	s := d.Strings()
	if len(s) != 8 {
		d.Fail("a finding without its eight strings")
		return
	}
	f.Fingerprint, f.Source, f.RuleID, f.Title, f.Message, f.Help, f.Diff, f.Key = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	f.Level = Level(d.Int())
	f.Object = DecodeObjectID(d)
	f.Path = DecodePath(d)
	f.Location = DecodeLocation(d)
	if n := d.Len(2); n > 0 {
		f.Related = make([]Related, n)
		for i := range f.Related {
			f.Related[i] = Related{Location: DecodeLocation(d), Message: d.String()}
		}
	}
	f.InputError = d.Bool()
	f.ConfigError = d.Bool()
	hasTags := d.Bool()
	f.Tags = d.Strings()
	if hasTags && f.Tags == nil {
		f.Tags = []string{}
	}
	if d.Bool() {
		f.Fix = &Fix{Description: d.String()}
		hasChanges := d.Bool()
		if n := d.Len(4); n > 0 || hasChanges {
			f.Fix.Changes = make([]Change, n)
			for i := range f.Fix.Changes {
				c := &f.Fix.Changes[i]
				c.Op = d.String()
				c.Path = DecodePath(d)
				c.Value = d.Value()
				c.To = d.String()
			}
		}
	}
}

// EncodeObjectID writes an object id.
func EncodeObjectID(e *cache.Encoder, id ObjectID) {
	e.Strings([]string{id.APIVersion, id.Kind, id.Namespace, id.Name, id.Target})
}

// DecodeObjectID reads an object id.
func DecodeObjectID(d *cache.Decoder) ObjectID {
	s := d.Strings()
	if len(s) != 5 {
		d.Fail("an object id without its five strings")
		return ObjectID{}
	}
	return ObjectID{APIVersion: s[0], Kind: s[1], Namespace: s[2], Name: s[3], Target: s[4]}
}

// EncodePath writes a field path (nil and empty apart).
func EncodePath(e *cache.Encoder, p Path) {
	e.Bool(p != nil)
	e.Uint(uint64(len(p)))
	for _, s := range p {
		e.Bool(s.IsIndex)
		if s.IsIndex {
			e.Int(int64(s.Index))
		} else {
			e.String(s.Key)
		}
	}
}

// DecodePath reads a field path.
func DecodePath(d *cache.Decoder) Path {
	present := d.Bool()
	n := d.Len(2)
	if !present {
		return nil
	}
	p := make(Path, n)
	for i := range p {
		if d.Bool() {
			p[i] = manifest.Index(int(d.Int()))
		} else {
			p[i] = manifest.Key(d.String())
		}
	}
	return p
}

// EncodeLocation writes a location.
func EncodeLocation(e *cache.Encoder, l Location) {
	e.String(l.File)
	for _, n := range [...]int{l.Line, l.Column, l.EndLine, l.EndColumn} {
		e.Int(int64(n))
	}
}

// DecodeLocation reads a location.
func DecodeLocation(d *cache.Decoder) Location {
	l := Location{File: d.String()}
	l.Line, l.Column, l.EndLine, l.EndColumn = int(d.Int()), int(d.Int()), int(d.Int()), int(d.Int())
	return l
}

// EncodeRules writes rule descriptors.
func EncodeRules(e *cache.Encoder, rules []Rule) {
	e.Uint(uint64(len(rules)))
	for _, r := range rules {
		e.Strings([]string{r.ID, r.Name, r.Short, r.Full, r.Help, r.SecuritySeverity, r.Precision})
		e.Int(int64(r.Level))
		e.Bool(r.Tags != nil)
		e.Strings(r.Tags)
	}
}

// DecodeRules reads what EncodeRules wrote.
func DecodeRules(d *cache.Decoder) []Rule {
	n := d.Len(4)
	if n == 0 {
		return nil
	}
	out := make([]Rule, n)
	for i := range out {
		s := d.Strings()
		if len(s) != 7 {
			d.Fail("a rule without its seven strings")
			return nil
		}
		r := &out[i]
		r.ID, r.Name, r.Short, r.Full, r.Help, r.SecuritySeverity, r.Precision = s[0], s[1], s[2], s[3], s[4], s[5], s[6]
		r.Level = Level(d.Int())
		hasTags := d.Bool()
		r.Tags = d.Strings()
		if hasTags && r.Tags == nil {
			r.Tags = []string{}
		}
	}
	return out
}
