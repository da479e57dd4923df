// Package finding holds the one model every engine reports in and every sink
// reads: Finding, its Level, and the Rule descriptions that go with it.
package finding

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Location and ObjectID are the manifest package's types: findings point at
// the same places the loader and renderer record.
type (
	Location = manifest.Location
	ObjectID = manifest.ObjectID
	Path     = manifest.Path
)

// Sources of findings.
const (
	SourceManifest = "manifest"
	SourceCheck    = "check"
	SourceKubeVirt = "kubevirt"
	SourceCompare  = "compare"
	SourceSchema   = "schema"
	SourcePolicy   = "policy"
	SourceRule     = "rule"
)

// Statuses in pull-request mode.
const (
	StatusNew       = "new"
	StatusUnchanged = "unchanged"
	StatusFixed     = "fixed"
)

// SideBase marks a finding located in the base revision (Finding.Side).
const SideBase = "base"

// AtBase reports whether the finding's location is a line of the base
// revision: a fixed finding, or one about an object the change deletes.
// Links and line comments must not read it as a line of the head.
func (f *Finding) AtBase() bool { return f.Status == StatusFixed || f.Side == SideBase }

// Finding is one problem at one place.
type Finding struct {
	// Fingerprint identifies the finding across revisions: a hash of the rule,
	// the object and the field path (plus Key), never of line numbers.
	Fingerprint string       `json:"fingerprint"`
	Source      string       `json:"source"`
	RuleID      string       `json:"rule_id"`
	Level       Level        `json:"level"`
	Title       string       `json:"title,omitempty"`
	Message     string       `json:"message"`
	Help        string       `json:"help,omitempty"`
	Object      ObjectID     `json:"object"`
	Path        Path         `json:"path,omitempty"`
	Location    Location     `json:"location"`
	Related     []Related    `json:"related,omitempty"`
	Diff        string       `json:"diff,omitempty"`
	Status      string       `json:"status,omitempty"`
	Suppressed  *Suppression `json:"suppressed,omitempty"`
	// Fix, when set, is a mechanical change that resolves the finding.
	Fix *Fix `json:"fix,omitempty"`
	// Side is SideBase when Location is a line of the base revision's
	// files (an object the change deletes has no line at the head); empty
	// for the head's (and, as ever, the base's for fixed findings).
	Side string `json:"side,omitempty"`
	// InputError marks findings that mean the input could not be used as
	// written (a YAML syntax error, a kustomization that does not build, an
	// invalid catalog). It is information: what the repository holds is a
	// finding with a level like any other, and obeys --fail-on and --gate.
	InputError bool `json:"input_error,omitempty"`
	// ConfigError marks problems with what plumb was given to run with
	// rather than with the repository's content: a checks catalog, rules
	// file, reference or configuration entry that does not load. plumb
	// cannot do what it was asked, so the run exits 2 whatever --fail-on
	// says.
	ConfigError bool `json:"config_error,omitempty"`
	// Key distinguishes findings that share rule, object and path (two
	// syntax errors in one file, two expectations of one check). It is part
	// of the fingerprint and never printed.
	Key string `json:"-"`
	// Tags are report tags (inspection-rule traits).
	Tags []string `json:"tags,omitempty"`
}

// Related is a secondary location with a note on why it matters.
type Related struct {
	Location
	Message string `json:"message,omitempty"`
}

// Suppression records why a finding is accepted.
type Suppression struct {
	Kind   string `json:"kind"` // "annotation" | "config"
	Reason string `json:"reason"`
	Until  string `json:"until,omitempty"`
	// Source is where the suppression is declared.
	Source Location `json:"source,omitzero"`
}

// Fingerprint hashes the parts that identify a finding independently of line
// numbers: rule id, object id (with render target), field path and key. For
// findings about a file rather than an object, the file stands in for the
// object.
func Fingerprint(ruleID string, obj ObjectID, path Path, file, key string) string {
	h := sha256.New()
	subject := obj.Key()
	if obj.IsZero() {
		subject = "file:" + file
	}
	for _, part := range []string{ruleID, subject, path.String(), key} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// SetFingerprint computes f.Fingerprint from its identifying fields.
func (f *Finding) SetFingerprint() {
	f.Fingerprint = Fingerprint(f.RuleID, f.Object, f.Path, f.Location.File, f.Key)
}

// Compare is the total order reports use: by file, position, then level
// (most severe first), rule, object, path, message and fingerprint.
func Compare(a, b *Finding) int {
	if c := a.Location.Compare(b.Location); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Level, b.Level); c != 0 {
		return c
	}
	if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
		return c
	}
	if c := a.Object.Compare(b.Object); c != 0 {
		return c
	}
	if c := strings.Compare(a.Path.String(), b.Path.String()); c != 0 {
		return c
	}
	if c := strings.Compare(a.Message, b.Message); c != 0 {
		return c
	}
	if c := strings.Compare(a.Status, b.Status); c != 0 {
		return c
	}
	return strings.Compare(a.Fingerprint, b.Fingerprint)
}

// Sort orders findings with Compare.
func Sort(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int { return Compare(&a, &b) })
}

// String prints file:line:col: level: message [rule].
func (f *Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", manifest.FormatLocation(f.Location), f.Level, f.Message, f.RuleID)
}
