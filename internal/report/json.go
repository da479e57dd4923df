package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/jsonstream"
)

// JSON writes the report as one JSON object with the keys of the DESIGN.md
// contract in a fixed order — version, findings, summary, objects, targets,
// skipped (when files were skipped), fetched (when remote charts were used), rule_descriptors, duration_ms — followed by the engine sections sorted by
// name (checks, compare, kubevirt, rules, ...).
type JSON struct{}

// Write implements Sink. Each section is encoded and written in turn, so
// the whole report (hundreds of megabytes on a large repository) is never
// held in memory at once.
func (JSON) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := writeJSON(bw, r); err != nil {
		return err
	}
	return bw.Flush()
}

// MarshalJSON encodes the report deterministically, indented, with a
// trailing newline.
func MarshalJSON(r *Report) ([]byte, error) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	if err := writeJSON(bw, r); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON writes the report to a bufio.Writer, whose write errors are
// sticky: checking the last write of each section suffices.
func writeJSON(w *bufio.Writer, r *Report) error {
	findings := r.Findings
	if findings == nil {
		findings = []finding.Finding{}
	}
	objects := r.Objects
	if objects == nil {
		objects = []ObjectEntry{}
	}
	targets := r.Targets
	if targets == nil {
		targets = []TargetEntry{}
	}
	rules := r.Rules
	if rules == nil {
		rules = []finding.Rule{}
	}
	fields := []struct {
		key   string
		value any
	}{
		{"version", r.Version},
		{"findings", findings},
		{"summary", r.Summarize()},
		{"objects", objects},
		{"targets", targets},
	}
	if len(r.Skipped) > 0 {
		fields = append(fields, struct {
			key   string
			value any
		}{"skipped", r.Skipped})
	}
	if len(r.Fetched) > 0 {
		fields = append(fields, struct {
			key   string
			value any
		}{"fetched", r.Fetched})
	}
	fields = append(fields, []struct {
		key   string
		value any
	}{
		{"rule_descriptors", rules},
		{"duration_ms", r.DurationMS},
	}...)
	names := make([]string, 0, len(r.Sections))
	for name := range r.Sections {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fields = append(fields, struct {
			key   string
			value any
		}{name, r.Sections[name]})
	}

	w.WriteString("{\n")
	for i, f := range fields {
		k, _ := json.Marshal(f.key)
		w.WriteString("  ")
		w.Write(k)
		w.WriteString(": ")
		if s, ok := f.value.(jsonstream.Streamer); ok {
			// The large sections write themselves piece by piece.
			if err := s.StreamJSON(w, "  ", "  "); err != nil {
				return fmt.Errorf("encoding the %s section: %w", f.key, err)
			}
		} else {
			v, err := json.MarshalIndent(f.value, "  ", "  ")
			if err != nil {
				return fmt.Errorf("encoding the %s section: %w", f.key, err)
			}
			w.Write(v)
		}
		if i < len(fields)-1 {
			w.WriteByte(',')
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	_, err := w.WriteString("}\n")
	return err
}

// ReadJSON decodes a report written by MarshalJSON. Engine sections are kept
// as raw JSON.
func ReadJSON(data []byte) (*Report, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a plumb JSON report: %w", err)
	}
	r := &Report{Sections: map[string]any{}}
	decode := func(key string, into any) error {
		v, ok := raw[key]
		if !ok {
			return fmt.Errorf("not a plumb JSON report: no %q key", key)
		}
		delete(raw, key)
		if err := json.Unmarshal(v, into); err != nil {
			return fmt.Errorf("the report's %q: %w", key, err)
		}
		return nil
	}
	for _, d := range []struct {
		key  string
		into any
	}{
		{"version", &r.Version}, {"findings", &r.Findings}, {"objects", &r.Objects},
		{"targets", &r.Targets}, {"rule_descriptors", &r.Rules}, {"duration_ms", &r.DurationMS},
	} {
		if err := decode(d.key, d.into); err != nil {
			return nil, err
		}
	}
	if v, ok := raw["skipped"]; ok {
		delete(raw, "skipped")
		if err := json.Unmarshal(v, &r.Skipped); err != nil {
			return nil, fmt.Errorf("the report's \"skipped\": %w", err)
		}
	}
	if v, ok := raw["fetched"]; ok {
		delete(raw, "fetched")
		if err := json.Unmarshal(v, &r.Fetched); err != nil {
			return nil, fmt.Errorf("the report's \"fetched\": %w", err)
		}
	}
	delete(raw, "summary") // derived from the findings
	for k, v := range raw {
		r.Sections[k] = v
	}
	if len(r.Sections) == 0 {
		r.Sections = nil
	}
	return r, nil
}
