package suppress

import "github.com/plumb-ci/plumb/internal/finding"

// Rule ids of the findings about suppressions.
const (
	RuleUnused  = "suppression/unused"
	RuleExpired = "suppression/expired"
	RuleInvalid = "suppression/invalid"
)

var ruleName = map[string]string{
	RuleUnused:  "Suppression matches nothing",
	RuleExpired: "Suppression expired",
	RuleInvalid: "Suppression cannot be read",
}

var ruleHelp = map[string]string{
	RuleUnused: "The object's `plumb.dev/ignore` annotation lists a rule that reports nothing on it — the problem was " +
		"fixed, or the id is misspelt. Remove the id from the list (and the annotation when the list becomes empty), " +
		"so that a future regression is not silently accepted.",
	RuleExpired: "The suppression's date (`plumb.dev/ignore-until`, or `until` in .plumb.yaml) has passed, so the " +
		"findings it accepted count again. Fix them, or — if the reason still holds — move the date.",
	RuleInvalid: "A `plumb.dev/ignore*` annotation cannot be read: `plumb.dev/ignore` takes rule ids (or patterns such " +
		"as `check/*`) separated by commas, `plumb.dev/ignore-until` a date as YYYY-MM-DD. The suppression is not " +
		"applied until it is fixed.",
}

// Rules describes the suppression rules.
func Rules() []finding.Rule {
	out := make([]finding.Rule, 0, 3)
	for _, r := range []struct {
		id    string
		level finding.Level
	}{{RuleUnused, finding.Note}, {RuleExpired, finding.Note}, {RuleInvalid, finding.Error}} {
		out = append(out, finding.Rule{
			ID: r.id, Name: ruleName[r.id], Short: ruleName[r.id], Full: ruleHelp[r.id], Help: ruleHelp[r.id],
			Level: r.level, Tags: []string{"suppression"}, Precision: "very-high",
		})
	}
	return out
}
