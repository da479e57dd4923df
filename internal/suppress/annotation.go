package suppress

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

func annotationPath(key string) manifest.Path {
	return manifest.Path{manifest.Key("metadata"), manifest.Key("annotations"), manifest.Key(key)}
}

// annotationSuppressions reads the plumb.dev/ignore annotations of every
// rendered object, by object id, and reports the ones that cannot be used.
// Rendering keeps annotations (unlike comments), so an annotation in a
// kustomize base suppresses the findings of every overlay that renders it,
// and an overlay can add or override one for itself.
func annotationSuppressions(targets []*render.Target) (map[manifest.ObjectID][]*suppression, []finding.Finding) {
	out := map[manifest.ObjectID][]*suppression{}
	var notes []finding.Finding
	for _, t := range targets {
		for _, o := range t.Objects {
			ann := o.Annotations()
			list, ok := ann[AnnotationIgnore]
			if !ok {
				continue
			}
			if _, dup := out[o.ID]; dup {
				continue // the same object twice: hygiene reports it; the first one counts
			}
			s := &suppression{kind: KindAnnotation, object: o, reason: ann[AnnotationReason], used: map[string]int{}}
			s.source, _ = o.Locate(annotationPath(AnnotationIgnore))
			s.untilSource = s.source
			if s.reason == "" {
				s.reason, s.noReason = "no reason given (add the "+AnnotationReason+" annotation)", true
			}
			for _, p := range strings.Split(list, ",") {
				p = strings.TrimSpace(p)
				if p == "" {
					continue
				}
				if _, err := path.Match(p, ""); err != nil {
					notes = append(notes, invalid(o, AnnotationIgnore, p,
						fmt.Sprintf("%s: %q is not a rule id or pattern (%v); it suppresses nothing", AnnotationIgnore, p, err)))
					continue
				}
				s.patterns = append(s.patterns, p)
			}
			if len(s.patterns) == 0 {
				notes = append(notes, invalid(o, AnnotationIgnore, "",
					fmt.Sprintf("%s lists no rule id: give the ids of the rules to suppress, separated by commas", AnnotationIgnore)))
				continue
			}
			if until, ok := ann[AnnotationUntil]; ok {
				if _, err := time.Parse(config.DateLayout, until); err != nil {
					notes = append(notes, invalid(o, AnnotationUntil, "",
						fmt.Sprintf("%s %q is not a date as YYYY-MM-DD, so the suppression is not applied", AnnotationUntil, until)))
					continue
				}
				s.until = until
				s.untilSource, _ = o.Locate(annotationPath(AnnotationUntil))
			}
			out[o.ID] = append(out[o.ID], s)
		}
	}
	return out, notes
}

// invalid reports an annotation that cannot be used as written.
func invalid(o *manifest.Object, key, detail, msg string) finding.Finding {
	loc, _ := o.Locate(annotationPath(key))
	f := finding.Finding{
		Source:     finding.SourceManifest,
		RuleID:     RuleInvalid,
		Level:      finding.Error,
		Title:      ruleName[RuleInvalid],
		Message:    msg,
		Help:       ruleHelp[RuleInvalid],
		Object:     o.ID,
		Path:       annotationPath(key),
		Location:   loc,
		InputError: true,
		Key:        detail,
	}
	f.SetFingerprint()
	return f
}

// annotationNotes points out an expired annotation, or the rule patterns of
// a current one that matched no finding on its object.
func (s *suppression) annotationNotes(today string) []finding.Finding {
	o := s.object
	if s.expired(today) {
		f := finding.Finding{
			Source: finding.SourceManifest,
			RuleID: RuleExpired,
			Level:  finding.Note,
			Title:  ruleName[RuleExpired],
			Message: fmt.Sprintf("%s: %s has passed: the findings of %s on %s are reported again%s; fix them, or move the date",
				AnnotationUntil, s.until, strings.Join(s.patterns, ", "), objectName(o.ID), s.reasonNote()),
			Help:     ruleHelp[RuleExpired],
			Object:   o.ID,
			Path:     annotationPath(AnnotationUntil),
			Location: s.untilSource,
		}
		f.SetFingerprint()
		return []finding.Finding{f}
	}
	var out []finding.Finding
	for _, p := range s.patterns {
		if s.used[p] > 0 {
			continue
		}
		f := finding.Finding{
			Source: finding.SourceManifest,
			RuleID: RuleUnused,
			Level:  finding.Note,
			Title:  ruleName[RuleUnused],
			Message: fmt.Sprintf("%s lists %s, but no finding of it is reported on %s: remove it from the list",
				AnnotationIgnore, p, objectName(o.ID)),
			Help:     ruleHelp[RuleUnused],
			Object:   o.ID,
			Path:     annotationPath(AnnotationIgnore),
			Location: s.source,
			Key:      p,
		}
		f.SetFingerprint()
		out = append(out, f)
	}
	return out
}

// objectName prints Kind namespace/name without the target.
func objectName(id manifest.ObjectID) string {
	id.Target = ""
	return id.String()
}
