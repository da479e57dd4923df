package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

// Output is kube-compare's report: the JSON shape of `-o json` (field names
// and their spelling, "ValidationIssuses" included, are kube-compare's).
type Output struct {
	Summary  *Summary  `json:"Summary"`
	Diffs    []DiffSum `json:"Diffs"`
	Warnings []Warning `json:"Warnings,omitempty"`

	// verbose shows unchanged inputs in the text form.
	verbose bool
}

// Summary is the report's summary.
type Summary struct {
	ValidationIssues map[string]map[string]ValidationIssue `json:"ValidationIssuses"`
	NumMissing       int                                   `json:"NumMissing"`
	UnmatchedCRS     []string                              `json:"UnmatchedCRS"`
	NumDiffCRs       int                                   `json:"NumDiffCRs"`
	TotalCRs         int                                   `json:"TotalCRs"`
	MetadataHash     string                                `json:"MetadataHash"`
	PatchedCRs       int                                   `json:"patchedCRs"`
	// MatchedByReferenceOnly lists the templates inferred from owner
	// references or RBAC subjects (their contents are not validated).
	MatchedByReferenceOnly []string `json:"matchedByReferenceOnly,omitempty"`
}

// ValidationIssue is one component's issue.
type ValidationIssue struct {
	Msg        string                `json:"Msg,omitempty"`
	CRs        []string              `json:"CRs,omitempty"`
	CRMetadata map[string]CRMetadata `json:"crMetadata,omitempty"`
}

// CRMetadata carries a listed template's description.
type CRMetadata struct {
	Description string `json:"description,omitempty"`
}

// DiffSum is one compared input.
type DiffSum struct {
	DiffOutput         string   `json:"DiffOutput"`
	CorrelatedTemplate string   `json:"CorrelatedTemplate"`
	CRName             string   `json:"CRName"`
	Patched            string   `json:"Patched,omitempty"`
	OverrideReasons    []string `json:"OverrideReason,omitempty"`
	Description        string   `json:"description,omitempty"`
}

// Warning is a report-level warning.
type Warning struct {
	Type      string   `json:"type"`
	Message   string   `json:"message"`
	Templates []string `json:"templates,omitempty"`
}

// WarningInferred is the warning type of templates satisfied through owner
// references or RBAC subjects.
const WarningInferred = "InferredResourcesNotValidated"

// ReportOptions shape a report.
type ReportOptions struct {
	// AllResources lists the inputs that matched no template (-A); inputs
	// whose template failed are always listed.
	AllResources bool
	// Verbose shows every compared input in the text form, not only those
	// with a difference.
	Verbose bool
}

// Report builds kube-compare's report from a result.
func (res *Result) Report(opts ReportOptions) *Output {
	out := &Output{verbose: opts.Verbose, Diffs: []DiffSum{}}
	s := &Summary{
		ValidationIssues: map[string]map[string]ValidationIssue{},
		UnmatchedCRS:     []string{},
		NumMissing:       res.NumMissing,
		NumDiffCRs:       res.NumDiffCRs,
		TotalCRs:         res.TotalCRs,
		MetadataHash:     res.Ref.Hash,
		PatchedCRs:       res.PatchedCRs,
	}
	out.Summary = s
	for _, is := range res.Issues {
		vi := ValidationIssue{Msg: is.Msg}
		for _, t := range is.Templates {
			vi.CRs = append(vi.CRs, t.Path)
			if is.Descriptions && t.Description != "" {
				if vi.CRMetadata == nil {
					vi.CRMetadata = map[string]CRMetadata{}
				}
				vi.CRMetadata[t.Path] = CRMetadata{Description: t.Description}
			}
		}
		if s.ValidationIssues[is.Part.Name] == nil {
			s.ValidationIssues[is.Part.Name] = map[string]ValidationIssue{}
		}
		s.ValidationIssues[is.Part.Name][is.Component.Name] = vi
	}
	for _, u := range res.Unmatched {
		if opts.AllResources || u.Err != nil {
			s.UnmatchedCRS = append(s.UnmatchedCRS, u.ID.String())
		}
	}
	for _, c := range res.Compared {
		// Every compared CR carries its template's description, with or
		// without a difference (kube-compare pkg/compare/compare.go, the
		// DiffSum built per compared CR).
		d := DiffSum{DiffOutput: c.DiffOutput(), CorrelatedTemplate: c.Template.Path, CRName: c.Identity(),
			Description: c.Template.Description}
		if len(c.Overrides) > 0 {
			d.Patched = res.overridesFile
			for _, ov := range c.Overrides {
				d.OverrideReasons = append(d.OverrideReasons, ov.Reason)
			}
		}
		out.Diffs = append(out.Diffs, d)
	}
	if len(res.Inferred) > 0 {
		w := Warning{Type: WarningInferred,
			Message: fmt.Sprintf("%d resource(s) found via ownerReferences or RBAC subjects but contents not validated", len(res.Inferred))}
		for _, t := range res.Inferred {
			w.Templates = append(w.Templates, t.Path)
			s.MatchedByReferenceOnly = append(s.MatchedByReferenceOnly, t.Path)
		}
		out.Warnings = append(out.Warnings, w)
	}
	return out
}

// HasDrift reports what kube-compare's exit code 1 means: a compared input
// differs, or a validation issue was raised (even one that counts zero).
func (o *Output) HasDrift() bool {
	return o.Summary.NumDiffCRs > 0 || len(o.Summary.ValidationIssues) > 0
}

// JSON writes the report as one line of JSON, as kube-compare does.
func (o *Output) JSON(w io.Writer) error {
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// YAML writes the report as kube-compare does: the JSON shape through
// sigs.k8s.io/yaml, so keys are sorted.
//
// When a multi-line string would put a workflow command at the start of a
// line, the report is printed by workflowcmd.SafeYAML instead: the same
// values, such strings double-quoted.
func (o *Output) YAML(w io.Writer) error {
	data, err := sigsyaml.Marshal(o)
	if err != nil {
		return err
	}
	if workflowcmd.HasCommandLine(string(data)) {
		var tree any
		if err := sigsyaml.Unmarshal(data, &tree); err == nil {
			if safe, err := workflowcmd.SafeYAML(tree); err == nil {
				data = []byte(safe)
			}
		}
	}
	_, err = w.Write(data)
	return err
}

// separator is kube-compare's line between diff blocks.
const separator = "**********************************\n\n"

// Text writes kube-compare's human report: a block per compared input that
// differs (every input with Verbose, patched ones always), then the summary.
func (o *Output) Text(w io.Writer) error {
	var b strings.Builder
	diffs := slices.Clone(o.Diffs)
	slices.SortStableFunc(diffs, func(a, b DiffSum) int {
		return strings.Compare(a.CorrelatedTemplate+a.CRName, b.CorrelatedTemplate+b.CRName)
	})
	b.WriteString(separator)
	for _, d := range diffs {
		if d.DiffOutput == "" && d.Patched == "" && !o.verbose {
			continue
		}
		fmt.Fprintf(&b, "Cluster CR: %s\nReference File: %s\n", d.CRName, d.CorrelatedTemplate)
		if d.Description != "" {
			fmt.Fprintf(&b, "Description:\n%s\n", indent(d.Description, 2))
		}
		if d.DiffOutput == "" {
			b.WriteString("Diff Output: None\n")
		} else {
			fmt.Fprintf(&b, "Diff Output: %s", d.DiffOutput)
		}
		if d.Patched != "" {
			fmt.Fprintf(&b, "Patched with %s\nPatch Reasons:\n", d.Patched)
			for _, r := range d.OverrideReasons {
				fmt.Fprintf(&b, "- %s\n", r)
			}
		}
		b.WriteString("\n")
		b.WriteString(separator)
	}
	o.writeSummary(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (o *Output) writeSummary(b *strings.Builder) {
	s := o.Summary
	fmt.Fprintf(b, "Summary\nCRs with diffs: %d/%d\n", s.NumDiffCRs, s.TotalCRs)
	if len(s.ValidationIssues) > 0 {
		fmt.Fprintf(b, "CRs in reference missing from the cluster: %d\n", s.NumMissing)
		for _, part := range sortedKeys(s.ValidationIssues) {
			fmt.Fprintf(b, "%s:\n", part)
			comps := s.ValidationIssues[part]
			for _, comp := range sortedKeys(comps) {
				vi := comps[comp]
				fmt.Fprintf(b, "  %s:\n    %s:\n", comp, vi.Msg)
				for _, cr := range vi.CRs {
					fmt.Fprintf(b, "    - %s\n", cr)
					if d := vi.CRMetadata[cr].Description; d != "" {
						fmt.Fprintf(b, "      Description:\n%s\n", indent(d, 8))
					}
				}
			}
		}
	} else {
		b.WriteString("No validation issues with the cluster\n")
	}
	for _, w := range o.Warnings {
		if w.Type != WarningInferred {
			continue
		}
		fmt.Fprintf(b, "\nWarning: %s:\n", w.Message)
		for _, t := range w.Templates {
			fmt.Fprintf(b, "  - %s\n", t)
		}
	}
	if len(s.UnmatchedCRS) > 0 {
		fmt.Fprintf(b, "Cluster CRs unmatched to reference CRs: %d\n", len(s.UnmatchedCRS))
		for _, u := range s.UnmatchedCRS {
			fmt.Fprintf(b, "- %s\n", u)
		}
	} else {
		b.WriteString("No CRs are unmatched to reference CRs\n")
	}
	fmt.Fprintf(b, "Metadata Hash: %s\n", s.MetadataHash)
	if s.PatchedCRs > 0 {
		fmt.Fprintf(b, "Cluster CRs with patches applied: %d\n", s.PatchedCRs)
	} else {
		b.WriteString("No patched CRs\n")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

// GeneratePatches writes the YAML list of overrides that accept the current
// differences: the loaded overrides, then one mergepatch per compared input
// with a difference whose template is in templates.
func (res *Result) GeneratePatches(w io.Writer, templates []string, reason string) error {
	list := []any{}
	if res.overrides != nil {
		for _, ov := range res.overrides.Items {
			list = append(list, ov.asMap())
		}
	}
	for _, c := range res.Compared {
		if !c.HasDiff || !slices.Contains(templates, c.Template.Path) {
			continue
		}
		list = append(list, generatedOverride(c.ID, c.Template.Path, reason, c.Reference, c.Live))
	}
	_, err := io.WriteString(w, yamlText(list))
	return err
}
