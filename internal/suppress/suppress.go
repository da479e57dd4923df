// Package suppress applies suppressions to a run's findings: the
// plumb.dev/ignore annotations on rendered objects and the suppressions of
// .plumb.yaml. A suppressed finding stays in the report with the reason (and
// SARIF shows it as suppressed) but leaves the exit-code gate. Suppressions
// past their date stop applying, and suppressions that no longer match
// anything are pointed out, so that accepted findings are revisited.
package suppress

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// The annotations read on objects.
const (
	AnnotationIgnore = "plumb.dev/ignore"
	AnnotationReason = "plumb.dev/ignore-reason"
	AnnotationUntil  = "plumb.dev/ignore-until"
)

// Kinds of suppression (finding.Suppression.Kind).
const (
	KindAnnotation = "annotation"
	KindConfig     = "config"
)

// Options are the inputs besides the findings.
type Options struct {
	// Config holds the suppressions of .plumb.yaml, declared in ConfigFile.
	Config     []config.Suppression
	ConfigFile string
	// Today is the date expiry is read against; only its UTC date counts.
	Today time.Time
}

// Result is the findings with suppressions applied, followed by the notes
// about the suppressions themselves, and the usage of the configured
// suppressions.
type Result struct {
	Findings []finding.Finding
	Section  *Section
}

// Apply marks the findings that a suppression accepts. Problems with
// plumb's own inputs (ConfigError) are never suppressed: they are not about
// the repository. fs is modified in place and returned
// with the notes appended.
func Apply(fs []finding.Finding, targets []*render.Target, opts Options) Result {
	today := opts.Today.UTC().Format(config.DateLayout)
	objects, notes := annotationSuppressions(targets)
	cfg := configSuppressions(opts.Config, opts.ConfigFile)

	for i := range fs {
		f := &fs[i]
		if f.ConfigError || f.Suppressed != nil {
			continue
		}
		apply(f, candidates(f, objects, cfg, true), today)
	}

	for _, list := range objects {
		for _, s := range list {
			notes = append(notes, s.annotationNotes(today)...)
		}
	}
	var sec *Section
	if len(cfg) > 0 {
		sec = &Section{}
		for _, s := range cfg {
			if s.expired(today) {
				notes = append(notes, s.expiredNote())
			}
			sec.Config = append(sec.Config, s.entry(today))
		}
	}
	finding.Sort(notes)
	return Result{Findings: append(fs, notes...), Section: sec}
}

// Pending suppresses findings that a sharded run does not report yet (plumb
// merge decides whether they exist) as Apply would, but without counting
// them as uses: it returns, for each finding, the indexes of the configured
// suppressions that select it, which plumb merge marks used for the
// findings it reports. Annotations that select a pending finding do not
// learn of it (only an object with an empty id could match the render
// target of a pending finding).
func Pending(fs []finding.Finding, targets []*render.Target, opts Options) [][]int {
	today := opts.Today.UTC().Format(config.DateLayout)
	objects, _ := annotationSuppressions(targets)
	cfg := configSuppressions(opts.Config, opts.ConfigFile)
	uses := make([][]int, len(fs))
	for i := range fs {
		f := &fs[i]
		if f.ConfigError || f.Suppressed != nil {
			continue
		}
		for j, s := range cfg {
			if s.matchConfig(f) {
				uses[i] = append(uses[i], j)
			}
		}
		apply(f, candidates(f, objects, cfg, false), today)
	}
	return uses
}

// candidates lists the suppressions that select f: its object's
// annotations, then the configured ones. count records the uses.
func candidates(f *finding.Finding, objects map[manifest.ObjectID][]*suppression, cfg []*suppression, count bool) []*suppression {
	var out []*suppression
	if !f.Object.IsZero() {
		for _, s := range objects[f.Object] {
			if pats := s.matchingPatterns(f.RuleID); len(pats) > 0 {
				if count {
					for _, p := range pats {
						s.used[p]++
					}
				}
				out = append(out, s)
			}
		}
	}
	for _, s := range cfg {
		if s.matchConfig(f) {
			if count {
				s.used[""]++
			}
			out = append(out, s)
		}
	}
	return out
}

// apply suppresses f with the first candidate still in force; when every
// candidate has expired, f stays reported and says which suppressions ran
// out.
func apply(f *finding.Finding, candidates []*suppression, today string) {
	for _, s := range candidates {
		if !s.expired(today) {
			f.Suppressed = &finding.Suppression{Kind: s.kind, Reason: s.reason, Until: s.until, Source: s.source}
			return
		}
	}
	for _, s := range candidates {
		f.Related = append(f.Related, finding.Related{
			Location: s.untilSource,
			Message:  fmt.Sprintf("a suppression of this finding expired after %s%s", s.until, s.reasonNote()),
		})
	}
}

// suppression is one annotation set or one configuration entry.
type suppression struct {
	kind     string
	reason   string
	noReason bool   // reason is a placeholder: the annotation gave none
	until    string // YYYY-MM-DD, "" for none
	// source is where it is declared; untilSource is where its date is.
	source, untilSource manifest.Location

	// Annotations: the object and the rule patterns listed.
	object   *manifest.Object
	patterns []string
	// Configuration: the entry.
	entryCfg *config.Suppression
	field    manifest.Path

	// used counts the findings matched: by pattern for annotations, under
	// "" for configuration entries.
	used map[string]int
}

func (s *suppression) expired(today string) bool { return s.until != "" && today > s.until }

// reasonNote quotes the reason for messages.
func (s *suppression) reasonNote() string {
	if s.noReason {
		return ""
	}
	return " (reason given: " + s.reason + ")"
}

// matchingPatterns returns the patterns of an annotation's rule list that
// match ruleID.
func (s *suppression) matchingPatterns(ruleID string) []string {
	var out []string
	for _, p := range s.patterns {
		if matchPattern(p, ruleID) {
			out = append(out, p)
		}
	}
	return out
}

// matchPattern matches a rule id against an exact id or a path.Match
// pattern ("check/*").
func matchPattern(pattern, s string) bool {
	if pattern == s {
		return true
	}
	ok, _ := path.Match(pattern, s)
	return ok
}

// matchConfig reports whether every selector of a configuration entry
// matches f.
func (s *suppression) matchConfig(f *finding.Finding) bool {
	e := s.entryCfg
	if e.Fingerprint != "" && e.Fingerprint != f.Fingerprint {
		return false
	}
	if e.Rule != "" && !matchPattern(e.Rule, f.RuleID) {
		return false
	}
	if e.Path != "" {
		if ok, _ := doublestar.Match(e.Path, f.Location.File); !ok {
			return false
		}
	}
	if s.field != nil && !f.Path.HasPrefix(s.field) {
		return false
	}
	if o := e.Object; o != nil {
		id := f.Object
		for _, pv := range [][2]string{{o.APIVersion, id.APIVersion}, {o.Kind, id.Kind}, {o.Namespace, id.Namespace}, {o.Name, id.Name}, {o.Target, id.Target}} {
			if pv[0] != "" && !matchPattern(pv[0], pv[1]) {
				return false
			}
		}
	}
	return true
}

// configSuppressions turns the configuration entries into suppressions.
func configSuppressions(entries []config.Suppression, file string) []*suppression {
	out := make([]*suppression, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		loc := manifest.Location{File: file, Line: e.Line, Column: e.Column}
		s := &suppression{kind: KindConfig, reason: e.Reason, until: e.Until, source: loc, untilSource: loc,
			entryCfg: e, used: map[string]int{}}
		if e.Field != "" {
			s.field, _ = manifest.ParsePath(e.Field) // validated with the configuration
		}
		out = append(out, s)
	}
	return out
}

// describe prints a configuration entry's selectors, for messages and as
// the key of its notes (stable when entries are added around it).
func describe(e *config.Suppression) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("fingerprint", e.Fingerprint)
	add("rule", e.Rule)
	add("path", e.Path)
	add("field", e.Field)
	if o := e.Object; o != nil {
		add("object.api_version", o.APIVersion)
		add("object.kind", o.Kind)
		add("object.namespace", o.Namespace)
		add("object.name", o.Name)
		add("object.target", o.Target)
	}
	return strings.Join(parts, " ")
}

func (s *suppression) expiredNote() finding.Finding {
	f := finding.Finding{
		Source:   finding.SourceManifest,
		RuleID:   RuleExpired,
		Level:    finding.Note,
		Title:    ruleName[RuleExpired],
		Message:  fmt.Sprintf("the suppression (%s) expired after %s: the findings it accepted are reported again%s; fix them, or extend until", describe(s.entryCfg), s.until, s.reasonNote()),
		Help:     ruleHelp[RuleExpired],
		Location: s.source,
		Key:      describe(s.entryCfg),
	}
	f.SetFingerprint()
	return f
}

func (s *suppression) entry(today string) SectionEntry {
	return SectionEntry{Location: s.source, Selector: describe(s.entryCfg), Reason: s.reason, Until: s.until,
		Expired: s.expired(today), Used: s.used[""] > 0}
}
