// Package report holds the run's report and the sinks that write it: text,
// JSON (and, as they land, SARIF and Markdown). Every sink reads the same
// Report; none of them computes anything the others would need.
package report

import (
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// SchemaVersion is the version of the JSON report layout.
const SchemaVersion = "1"

// Report is everything a sink can print.
type Report struct {
	Version  string
	Findings []finding.Finding // sorted with finding.Sort
	Rules    []finding.Rule    // every rule that ran, sorted by id
	Objects  []ObjectEntry
	Targets  []TargetEntry
	// Skipped are the files found but not read as Kubernetes objects (Helm
	// charts, kustomize patches, tool configuration, files without
	// objects), sorted by path.
	Skipped []manifest.Skipped
	// DurationMS is the wall time of the run (0 in reproducible mode).
	DurationMS int64
	// Sections are the engine sections of the JSON report, by engine name.
	Sections map[string]any
	// Fetched are the remote artifacts the run used (fetched.go).
	Fetched []Fetched
}

// ObjectEntry lists one analysed object.
type ObjectEntry struct {
	finding.ObjectID
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// TargetEntry lists one render target.
type TargetEntry struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Objects int    `json:"objects"`
}

// Summary counts findings.
type Summary struct {
	// Total and the other counts are of the findings at the head; in
	// pull-request mode, the fixed ones are counted only in Statuses.
	Total int `json:"total"`
	// Levels counts unsuppressed findings by level.
	Levels map[string]int `json:"levels"`
	// Statuses counts findings by pull-request status (PR mode only).
	Statuses    map[string]int `json:"statuses,omitempty"`
	Suppressed  int            `json:"suppressed"`
	InputErrors int            `json:"input_errors"`
	Files       int            `json:"files"`
	// SkippedFiles counts the files not read as objects.
	SkippedFiles int `json:"skipped_files,omitempty"`
}

// Summarize counts the report's findings.
func (r *Report) Summarize() Summary {
	s := Summary{Levels: map[string]int{"error": 0, "warning": 0, "note": 0}}
	files := map[string]bool{}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Status != "" {
			if s.Statuses == nil {
				s.Statuses = map[string]int{}
			}
			s.Statuses[f.Status]++
		}
		if f.Status == finding.StatusFixed {
			continue // gone at the head: counted only as fixed
		}
		s.Total++
		if f.InputError {
			s.InputErrors++
		}
		if f.Suppressed != nil {
			s.Suppressed++
			continue
		}
		s.Levels[f.Level.String()]++
		if f.Location.File != "" {
			files[f.Location.File] = true
		}
	}
	s.Files = len(files)
	s.SkippedFiles = len(r.Skipped)
	return s
}
