package rules

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Info is a rule as plumb rules list and show print it. Conditions and
// Actions are nil for sensitive rules (Ironic returns null).
type Info struct {
	UUID        string `json:"uuid" yaml:"uuid"`
	Description string `json:"description" yaml:"description"`
	Priority    int    `json:"priority" yaml:"priority"`
	Phase       Phase  `json:"phase" yaml:"phase"`
	Scope       string `json:"scope" yaml:"scope"`
	Sensitive   bool   `json:"sensitive" yaml:"sensitive"`
	BuiltIn     bool   `json:"built_in" yaml:"built_in"`
	Source      string `json:"source" yaml:"source"`
	// Conditions and Actions are []map[string]any, or nil (printed null).
	Conditions any `json:"conditions" yaml:"conditions"`
	Actions    any `json:"actions" yaml:"actions"`
}

// Describe returns what may be shown of a rule.
func (e *Engine) Describe(r *Rule) Info {
	info := Info{UUID: r.UUID, Description: r.Description, Priority: r.Priority, Phase: r.Phase,
		Scope: e.ScopeOf(r), Sensitive: r.Sensitive, BuiltIn: r.BuiltIn, Source: manifest.FormatLocation(r.Source)}
	if r.Sensitive {
		return info
	}
	conditions := []map[string]any{}
	for _, c := range r.Conditions {
		m := map[string]any{"op": c.OpString(), "args": c.Args}
		if c.HasLoop {
			m["loop"] = c.Loop
			m["multiple"] = c.Multiple
		}
		conditions = append(conditions, m)
	}
	actions := []map[string]any{}
	for _, a := range r.Actions {
		m := map[string]any{"op": a.Op, "args": a.Args}
		if a.HasLoop {
			m["loop"] = a.Loop
		}
		actions = append(actions, m)
	}
	info.Conditions, info.Actions = conditions, actions
	return info
}

// List returns the rules in running order (phase by phase), filtered by
// phase and scope when they are not empty.
func (e *Engine) List(phase Phase, scope string) []*Rule {
	var out []*Rule
	for _, p := range Phases {
		if phase != "" && p != phase {
			continue
		}
		for _, r := range e.phases[p] {
			if scope == "" || e.ScopeOf(r) == scope {
				out = append(out, r)
			}
		}
	}
	return out
}

// Descriptors describe every loaded rule for SARIF and report help, plus
// the engine's own rule ids.
func (e *Engine) Descriptors() []finding.Rule {
	out := []finding.Rule{
		{ID: RuleInvalid, Name: "Invalid inspection rule", Short: "A rules file or rule does not validate",
			Help:  "The rule was not loaded. Fix it at the reported line; `plumb rules lint FILE` checks a rules file on its own.",
			Level: finding.Error, Tags: []string{"rule"}, Precision: "very-high"},
		{ID: RuleLint, Name: "Deprecated inspection rule syntax", Short: "A rule uses deprecated or ineffective syntax",
			Help:  "The rule was loaded; rewrite it as the message says (for example args as a mapping).",
			Level: finding.Warning, Tags: []string{"rule"}, Precision: "very-high"},
		{ID: RulePluginDataConflict, Name: "Conflicting plugin data in one render target",
			Short: "Objects of one render target set a plugin-data key to different values",
			Help:  "The checks see one environment per render target; make the rules agree.",
			Level: finding.Warning, Tags: []string{"rule"}, Precision: "high"},
	}
	for _, r := range e.set.Rules {
		out = append(out, finding.Rule{
			ID: r.ID(), Name: r.Title(), Short: r.Title(), Full: r.help, Help: r.help,
			Level: ruleLevel(r), Tags: []string{"rule", string(r.Phase)}, Precision: "high",
		})
	}
	return out
}

// ruleLevel is the most severe finding a rule can make.
func ruleLevel(r *Rule) finding.Level {
	level := finding.Note
	for _, a := range r.Actions {
		switch a.Op {
		case "fail":
			return finding.Error
		case "log":
			if s, ok := a.Args["level"].(string); ok && logLevel(s) < level {
				level = logLevel(s)
			}
		}
	}
	return level
}

// ProblemFindings turns rules-file problems into findings: errors are input
// errors (exit 2), warnings are warnings.
func ProblemFindings(problems []Problem) []finding.Finding {
	var out []finding.Finding
	for _, p := range problems {
		f := finding.Finding{
			Source: finding.SourceRule, RuleID: RuleInvalid, Level: finding.Error, Title: "Invalid inspection rule",
			Message: p.Message, Location: p.Location, InputError: true, ConfigError: true, Key: p.Message,
			Help: "The rule was not loaded. Fix it at this line; `plumb rules lint FILE` checks a rules file on its own.",
		}
		if p.Warning {
			f.RuleID, f.Level, f.Title, f.InputError, f.ConfigError = RuleLint, finding.Warning, "Deprecated inspection rule syntax", false, false
			f.Help = "The rule was loaded; rewrite it as the message says."
		}
		f.SetFingerprint()
		out = append(out, f)
	}
	return out
}

// FormatList prints rules as plumb rules list does: a table of uuid, phase,
// priority and description, or with long every field as YAML documents
// (conditions and actions null for sensitive rules).
func (e *Engine) FormatList(rules []*Rule, long bool) (string, error) {
	var b strings.Builder
	if !long {
		rows := [][]string{{"UUID", "PHASE", "PRIORITY", "DESCRIPTION"}}
		for _, r := range rules {
			rows = append(rows, []string{r.UUID, string(r.Phase), itoa(r.Priority), r.Description})
		}
		writeTable(&b, rows)
		return b.String(), nil
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, r := range rules {
		if err := enc.Encode(e.Describe(r)); err != nil {
			return "", err
		}
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeTable(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, row := range rows {
		var cells []string
		for i, c := range row {
			if i == len(row)-1 {
				cells = append(cells, c)
			} else {
				cells = append(cells, c+strings.Repeat(" ", widths[i]-len(c)))
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " "))
		b.WriteByte('\n')
	}
}
