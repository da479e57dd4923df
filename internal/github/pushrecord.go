package github

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/report"
)

// MaxPushRecord bounds the hidden line of the summary comment that records
// its head's findings for the next push. The summary's Markdown has
// GitHub's limit less this room. A record that would be longer (a change
// with hundreds of new and fixed problems) keeps only its head and says
// "over": the next push then says it could not compare, rather than
// comparing with part of the findings.
const MaxPushRecord = 4096

// PushRecord is what the summary comment records about the head it was
// written for: the commit, the base it was compared with, the change's
// problems (report.ChangeProblems), and the comparison with the previous
// push it showed, so that a rerun on the same head shows it again.
type PushRecord struct {
	Head, Base string
	Problems   report.ChangeProblems
	// Over is set when the problems did not fit MaxPushRecord and were
	// not recorded.
	Over bool
	// Since, when set, is what the comment said about the previous push.
	Since *SinceNote
}

// SinceNote is the comparison with the previous head a summary showed.
type SinceNote struct {
	Head string
	report.PushDelta
	// BaseMoved: the previous head was compared with another base commit.
	BaseMoved bool
	// Unknown: the previous head's record was over the cap; no counts.
	Unknown bool
}

const pushMarkerPrefix = "<!-- plumb:push "

// The parts of a record line; anything else makes the line no record.
var (
	recordSHA     = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
	recordGroups  = regexp.MustCompile(`^(?:[0-9a-f]{8,64}(?:\+[0-9a-f]{8,64})*(?:,[0-9a-f]{8,64}(?:\+[0-9a-f]{8,64})*)*)?$`)
	recordSince   = regexp.MustCompile(`^([0-9a-f]{7,64}):([0-9]{1,7}):([0-9]{1,7}):([mu]*)$`)
	recordOptBase = regexp.MustCompile(`^(?:[0-9a-f]{7,64})?$`)
)

// encode is the record's hidden line (without newline). Over the cap the
// problems are left out and the line says "over".
func (p PushRecord) encode() string {
	line := p.line(false)
	if len(line) > MaxPushRecord {
		line = p.line(true)
	}
	return line
}

func (p PushRecord) line(over bool) string {
	var b strings.Builder
	b.WriteString(pushMarkerPrefix + "head=" + p.Head + " base=" + p.Base)
	if over || p.Over {
		b.WriteString(" over")
	} else {
		b.WriteString(" new=" + joinGroups(p.Problems.New) + " fixed=" + joinGroups(p.Problems.Fixed))
	}
	if s := p.Since; s != nil {
		flags := ""
		if s.BaseMoved {
			flags += "m"
		}
		if s.Unknown {
			flags += "u"
		}
		fmt.Fprintf(&b, " since=%s:%d:%d:%s", s.Head, s.Fixed, s.Introduced, flags)
	}
	b.WriteString(" -->")
	return b.String()
}

func joinGroups(groups [][]string) string {
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		parts = append(parts, strings.Join(g, "+"))
	}
	return strings.Join(parts, ",")
}

// parsePushRecord reads the record from a summary comment's body. The body
// is untrusted (anyone who may edit the comment can change it): only the
// line right after the summary marker is read, at most MaxPushRecord+256
// bytes of it, and every part must be what encode writes — hex
// fingerprints and commits, small numbers — or there is no record. What
// comes back can therefore never carry Markdown into the new comment.
func parsePushRecord(body string) (PushRecord, bool) {
	// (Cut first: the cost does not depend on the rest of the body.)
	if n := len(summaryMarker) + 2 + MaxPushRecord + 256; len(body) > n {
		body = body[:n]
	}
	rest, ok := strings.CutPrefix(normalizeNewlines(body), summaryMarker+"\n")
	if !ok || !strings.HasPrefix(rest, pushMarkerPrefix) {
		return PushRecord{}, false
	}
	line, _, found := strings.Cut(rest, "\n")
	if !found {
		return PushRecord{}, false
	}
	inner, ok := strings.CutSuffix(strings.TrimPrefix(line, pushMarkerPrefix), " -->")
	if !ok {
		return PushRecord{}, false
	}
	var rec PushRecord
	seen := map[string]bool{}
	for _, field := range strings.Split(inner, " ") {
		key, val, _ := strings.Cut(field, "=")
		if seen[key] {
			return PushRecord{}, false
		}
		seen[key] = true
		if !rec.setField(key, val) {
			return PushRecord{}, false
		}
	}
	if rec.Head == "" || (!rec.Over && (!seen["new"] || !seen["fixed"])) {
		return PushRecord{}, false
	}
	return rec, true
}

// setField sets one field of a record line; false for anything encode
// does not write.
func (p *PushRecord) setField(key, val string) bool {
	switch key {
	case "head":
		p.Head = val
		return recordSHA.MatchString(val)
	case "base":
		p.Base = val
		return recordOptBase.MatchString(val)
	case "over":
		p.Over = true
		return val == ""
	case "new", "fixed":
		if !recordGroups.MatchString(val) {
			return false
		}
		groups := splitGroups(val)
		if key == "new" {
			p.Problems.New = groups
		} else {
			p.Problems.Fixed = groups
		}
		return true
	case "since":
		m := recordSince.FindStringSubmatch(val)
		if m == nil {
			return false
		}
		fixed, _ := strconv.Atoi(m[2])
		introduced, _ := strconv.Atoi(m[3])
		p.Since = &SinceNote{Head: m[1], PushDelta: report.PushDelta{Fixed: fixed, Introduced: introduced},
			BaseMoved: strings.Contains(m[4], "m"), Unknown: strings.Contains(m[4], "u")}
		return true
	}
	return false
}

func splitGroups(val string) [][]string {
	if val == "" {
		return nil
	}
	var out [][]string
	for _, g := range strings.Split(val, ",") {
		out = append(out, strings.Split(g, "+"))
	}
	return out
}

// summaryBody is the summary comment's body: the marker, the record line
// when there is one, the Markdown.
func summaryBody(markdown string, rec *PushRecord) string {
	if rec == nil || !recordSHA.MatchString(rec.Head) || !recordOptBase.MatchString(rec.Base) {
		// (Commits come from the event and the API; should one not look
		// like a commit, it goes nowhere near the comment.)
		return summaryMarker + "\n" + markdown
	}
	line := rec.encode()
	if _, ok := parsePushRecord(summaryMarker + "\n" + line + "\n"); !ok {
		// Only a record the next run accepts is written: a fingerprint
		// that is not plumb's hex (a report from an untrusted artifact)
		// never reaches the comment.
		return summaryMarker + "\n" + markdown
	}
	return summaryMarker + "\n" + line + "\n" + markdown
}

// SinceOf is what a summary says about the previous push: nil on the
// first run, when either run was not compared with a base, or for a head
// the previous record is about too (a rerun, which shows again what the
// comment said: the comment then stays as it is).
func SinceOf(prev *PushRecord, cur PushRecord, delta func(report.ChangeProblems) report.PushDelta) *SinceNote {
	switch {
	case prev == nil || prev.Base == "" || cur.Base == "":
		return nil
	case prev.Head == cur.Head:
		return prev.Since
	case prev.Over:
		return &SinceNote{Head: prev.Head, Unknown: true}
	}
	return &SinceNote{Head: prev.Head, PushDelta: delta(prev.Problems), BaseMoved: prev.Base != cur.Base}
}

// Markdown is the line of the summary about the previous push.
func (s *SinceNote) Markdown() string {
	if s == nil {
		return ""
	}
	head := "**Since the last push** (`" + shortSHA(s.Head) + "`): "
	if s.Unknown {
		return head + "not compared: that push introduced and fixed more problems than the comment records."
	}
	var text string
	if s.Fixed+s.Introduced == 0 {
		text = "no change in the findings."
	} else {
		text = fmt.Sprintf("fixed %d, introduced %d.", s.Fixed, s.Introduced)
	}
	if s.BaseMoved {
		text += " (The base branch moved since: what the pushes fixed of the base is counted against each push's own base.)"
	}
	return head + text
}
