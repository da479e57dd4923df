package kubevirt

import "github.com/plumb-ci/plumb/internal/manifest"

// Section is the kubevirt section of the JSON report: for every
// VirtualMachine, where its rules come from, each rule's outcome, and the
// validator's verdict.
type Section struct {
	Summary         Summary    `json:"summary"`
	VirtualMachines []VMReport `json:"virtual_machines"`
}

// Summary counts the VMs and rule outcomes.
type Summary struct {
	VirtualMachines int `json:"virtual_machines"`
	// WithRules is how many VMs had rules to evaluate.
	WithRules int `json:"with_rules"`
	// Allowed and Rejected are the validator's verdicts on those.
	Allowed  int `json:"allowed"`
	Rejected int `json:"rejected"`
	// Outcomes counts rule outcomes: satisfied, unsatisfied, skipped,
	// error, invalid.
	Outcomes map[string]int `json:"outcomes"`
}

// VMReport is one VirtualMachine.
type VMReport struct {
	Object manifest.ObjectID `json:"object"`
	File   string            `json:"file,omitempty"`
	Line   int               `json:"line,omitempty"`
	// Template is set for a VM that is an object of a Template (processed
	// with its parameters' defaults): the Template's namespace/name.
	Template string `json:"template,omitempty"`
	// RuleSource is none, skip-annotation, deleting, vm-annotation,
	// template or template-not-found.
	RuleSource string `json:"rule_source"`
	// SourceTemplate is the parent Template (namespace/name) the rules were
	// looked up in.
	SourceTemplate string `json:"source_template,omitempty"`
	// Allowed is the validator's verdict; Message its denial message (the
	// causes joined with ", ", or the annotation's decoding error).
	Allowed bool         `json:"allowed"`
	Message string       `json:"message,omitempty"`
	Rules   []RuleReport `json:"rules,omitempty"`
}

// RuleReport is one rule's outcome on one VM.
type RuleReport struct {
	Name        string `json:"name"`
	Rule        string `json:"rule"`
	Path        string `json:"path,omitempty"`
	JustWarning bool   `json:"just_warning,omitempty"`
	// Outcome is satisfied, unsatisfied, skipped, error, or invalid (the
	// rule does not decode and was not evaluated).
	Outcome string `json:"outcome"`
	// Detail is the validator's text: the check's description, or the
	// error.
	Detail string `json:"detail,omitempty"`
}
