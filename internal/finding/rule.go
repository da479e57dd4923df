package finding

import (
	"slices"
	"strings"
)

// Rule describes a rule that can produce findings; SARIF's tool.driver.rules
// and the help shown in reports come from it.
type Rule struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Short string `json:"short_description"`
	// Full is the longer description; Help is Markdown remediation.
	Full  string   `json:"full_description,omitempty"`
	Help  string   `json:"help,omitempty"`
	Level Level    `json:"level"`
	Tags  []string `json:"tags,omitempty"`
	// SecuritySeverity is SARIF's 0.1–10 score for security rules, "" otherwise.
	SecuritySeverity string `json:"security_severity,omitempty"`
	// Precision is SARIF's very-high | high | medium | low.
	Precision string `json:"precision,omitempty"`
}

// SortRules orders rules by id and drops duplicates (the first wins).
func SortRules(rules []Rule) []Rule {
	slices.SortStableFunc(rules, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(rules, func(a, b Rule) bool { return a.ID == b.ID })
}
