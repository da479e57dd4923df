package report

import (
	"fmt"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

// pushFinding is a finding of the compared head: fp is its fingerprint
// (the record keeps 16 hex digits of it), at file:line.
func pushFinding(fp, status, file string, line int) finding.Finding {
	return finding.Finding{Fingerprint: fp + "0000000000000000", RuleID: "r-" + file, Level: finding.Error, Message: "m",
		Status: status, Location: finding.Location{File: file, Line: line}}
}

func TestSinceLastPush(t *testing.T) {
	r := &Report{Findings: []finding.Finding{
		pushFinding("bbbbbbbbbbbbbbbb", finding.StatusNew, "b.yaml", 1),       // new now, not then: introduced
		pushFinding("dddddddddddddddd", finding.StatusUnchanged, "d.yaml", 1), // fixed then, back now: introduced
		pushFinding("eeeeeeeeeeeeeeee", finding.StatusNew, "e.yaml", 1),       // new then and now
		pushFinding("cccccccccccccccc", finding.StatusFixed, "c.yaml", 1),     // a base finding fixed now: fixed
		pushFinding("9999999999999999", finding.StatusFixed, "g.yaml", 1),     // fixed then and now
		pushFinding("8888888888888888", finding.StatusUnchanged, "h.yaml", 1), // on the base, open then and now
		// One problem in two targets then; one of them fixed since: still
		// the same problem, open.
		pushFinding("f2f2f2f2f2f2f2f2", finding.StatusNew, "f.yaml", 1),
	}}
	prev := ChangeProblems{
		New:   [][]string{{"aaaaaaaaaaaaaaaa"}, {"eeeeeeeeeeeeeeee"}, {"f1f1f1f1f1f1f1f1", "f2f2f2f2f2f2f2f2"}},
		Fixed: [][]string{{"dddddddddddddddd"}, {"9999999999999999"}},
	}
	got := SinceLastPush(r, prev)
	if want := (PushDelta{Fixed: 2, Introduced: 2}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Against its own record, a head changed nothing.
	if got := SinceLastPush(r, ChangeProblemsOf(r)); got != (PushDelta{}) {
		t.Errorf("against itself: %+v", got)
	}
}

// The record is the change's problems only, alike findings together, cut
// to PushFingerprintLen: the backlog on the base does not grow it.
func TestChangeProblemsOf(t *testing.T) {
	a := pushFinding("aaaaaaaaaaaaaaaa", finding.StatusNew, "a.yaml", 3)
	alike := a
	alike.Fingerprint = "a2a2a2a2a2a2a2a2ffff"
	r := &Report{Findings: []finding.Finding{a, alike,
		pushFinding("8888888888888888", finding.StatusUnchanged, "h.yaml", 1),
		pushFinding("cccccccccccccccc", finding.StatusFixed, "c.yaml", 1),
		{RuleID: "no-identity", Status: finding.StatusNew, Message: "m"},
	}}
	got := fmt.Sprint(ChangeProblemsOf(r))
	if want := "{[[a2a2a2a2a2a2a2a2 aaaaaaaaaaaaaaaa]] [[cccccccccccccccc]]}"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// Fingerprints that are not plumb's hex (a report from an untrusted
// artifact) are not recorded.
func TestChangeProblemsOfKeepsOnlyHexFingerprints(t *testing.T) {
	bad := pushFinding("aaaaaaaa -->", finding.StatusNew, "a.yaml", 1)
	short := pushFinding("", finding.StatusNew, "b.yaml", 1)
	short.Fingerprint = "abc"
	if got := ChangeProblemsOf(&Report{Findings: []finding.Finding{bad, short}}); len(got.New) != 0 {
		t.Errorf("recorded %v", got.New)
	}
}
