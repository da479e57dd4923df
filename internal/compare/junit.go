package compare

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JUnit suite names and failure types, as kube-compare writes them.
const (
	junitName          = "Comparison results of known valid reference configuration and a set of specific cluster CRs"
	junitDiffSuite     = "Detected Differences Between Cluster CRs and Expected CRs"
	junitIssueSuite    = "Reference validation"
	junitUnmatchSuite  = "Unmatched Cluster Resources"
	junitDiffType      = "Difference"
	junitIssueType     = "Validation Issue"
	junitUnmatchedType = "Unmatched CR"
	junitIssueCase     = "Reference validation failure"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Data    string `xml:",chardata"`
}

// JUnit writes the report as JUnit XML: one suite of differences (a case
// per compared input), one of validation issues (a case per component
// issue) and one of unmatched inputs. An empty suite holds one passing case
// so every suite shows up in CI dashboards.
func (o *Output) JUnit(w io.Writer) error {
	props := []junitProperty{
		{Name: "MetadataHash", Value: o.Summary.MetadataHash},
		{Name: "TotalCRs", Value: strconv.Itoa(o.Summary.TotalCRs)},
	}
	diffs := junitSuite{Name: junitDiffSuite, Properties: props}
	for _, d := range o.Diffs {
		// kube-compare pkg/compare/output.go (the JUnit differences suite):
		// a case per compared CR, named after the CR, classed by the
		// template it was compared with.
		c := junitCase{Name: "CR: " + d.CRName, Classname: "Matching Reference CR: " + d.CorrelatedTemplate, Time: "0"}
		switch {
		case d.DiffOutput != "":
			c.Failure = &junitMessage{Type: junitDiffType, Data: d.DiffOutput,
				Message: fmt.Sprintf("Differences found in CR: %s, Compared To Reference CR: %s", d.CRName, d.CorrelatedTemplate)}
		case d.Patched != "":
			c.Skipped = &junitMessage{Message: fmt.Sprintf("the differences are accepted by overrides in %s: %s", d.Patched, strings.Join(d.OverrideReasons, "; "))}
		}
		diffs.add(c)
	}
	diffs.placeholder("No differences found")

	issues := junitSuite{Name: junitIssueSuite, Properties: props}
	for _, part := range sortedKeys(o.Summary.ValidationIssues) {
		comps := o.Summary.ValidationIssues[part]
		for _, comp := range sortedKeys(comps) {
			vi := comps[comp]
			// kube-compare pkg/compare/output.go (the reference
			// validation suite): one failing case per part/component.
			issues.add(junitCase{Name: junitIssueCase, Classname: fmt.Sprintf("Part:%s Component: %s", part, comp), Time: "0",
				Failure: &junitMessage{Type: junitIssueType, Message: vi.Msg + ": " + strings.Join(vi.CRs, ", ")}})
		}
	}
	issues.placeholder("No validation issues")

	unmatched := junitSuite{Name: junitUnmatchSuite, Properties: props}
	for _, u := range o.Summary.UnmatchedCRS {
		unmatched.add(junitCase{Name: "CR: " + u, Classname: junitUnmatchSuite, Time: "0",
			Failure: &junitMessage{Type: junitUnmatchedType, Message: "Unmatched CR: " + u}})
	}
	unmatched.placeholder("No unmatched cluster resources")

	all := junitSuites{Name: junitName, Time: "0", Suites: []junitSuite{diffs, issues, unmatched}}
	for _, s := range all.Suites {
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func (s *junitSuite) add(c junitCase) {
	s.Time = "0"
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
}

func (s *junitSuite) placeholder(name string) {
	s.Time = "0"
	if len(s.Cases) == 0 {
		s.add(junitCase{Name: name, Classname: s.Name, Time: "0"})
	}
}
