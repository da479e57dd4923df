// Package sarifcheck validates SARIF files in tests: Validate encodes the
// SARIF 2.1.0 schema's required structure and GitHub code scanning's upload
// rules; Multitool runs Microsoft's SARIF Multitool (the validator GitHub's
// rules come from) when it is installed.
package sarifcheck

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// GitHub's limits (research/peers.md §4).
const (
	maxRuns        = 20
	maxResults     = 25000
	maxRules       = 25000
	maxLocations   = 1000
	maxTags        = 20
	maxGzipBytes   = 10 << 20
	maxDescription = 1024
	maxRuleName    = 255
	guidPattern    = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	sarifVersion   = "2.1.0"
)

var guidRE = regexp.MustCompile(guidPattern)

// Validate returns every way data breaks the SARIF 2.1.0 structure or
// GitHub's ingestion rules.
func Validate(data []byte) []error {
	v := &validator{}
	var log map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&log); err != nil {
		return []error{fmt.Errorf("not JSON: %w", err)}
	}
	v.noNulls("$", log)
	v.str(log, "$", "version", func(s string) bool { return s == sarifVersion })
	v.str(log, "$", "$schema", func(s string) bool { return strings.HasPrefix(s, "https://") })
	runs := v.arr(log, "$", "runs", 1, maxRuns)
	categories := map[string]bool{}
	for i, r := range runs {
		run, ok := r.(map[string]any)
		if !ok {
			v.fail("$.runs[%d]: not an object", i)
			continue
		}
		v.run(fmt.Sprintf("$.runs[%d]", i), run, categories)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	_, _ = zw.Write(data) // into memory: cannot fail
	_ = zw.Close()
	if zb.Len() > maxGzipBytes {
		v.fail("the file is %d bytes gzip-compressed, over GitHub's %d", zb.Len(), maxGzipBytes)
	}
	return v.errs
}

type validator struct{ errs []error }

func (v *validator) fail(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf(format, args...))
}

// noNulls: SARIF has no nullable property; a null is a schema violation
// (go-sarif writes some absent fields as null).
func (v *validator) noNulls(path string, x any) {
	switch t := x.(type) {
	case nil:
		v.fail("%s: null", path)
	case map[string]any:
		for k, e := range t {
			v.noNulls(path+"."+k, e)
		}
	case []any:
		for i, e := range t {
			v.noNulls(fmt.Sprintf("%s[%d]", path, i), e)
		}
	}
}

func (v *validator) obj(m map[string]any, path, key string, required bool) map[string]any {
	x, ok := m[key]
	if !ok {
		if required {
			v.fail("%s.%s: missing", path, key)
		}
		return nil
	}
	o, ok := x.(map[string]any)
	if !ok {
		v.fail("%s.%s: not an object", path, key)
	}
	return o
}

func (v *validator) arr(m map[string]any, path, key string, minLen, maxLen int) []any {
	x, ok := m[key]
	if !ok {
		if minLen > 0 {
			v.fail("%s.%s: missing", path, key)
		}
		return nil
	}
	a, ok := x.([]any)
	if !ok {
		v.fail("%s.%s: not an array", path, key)
		return nil
	}
	if len(a) < minLen || len(a) > maxLen {
		v.fail("%s.%s: %d items, want %d to %d", path, key, len(a), minLen, maxLen)
	}
	return a
}

// str checks a required non-empty string property.
func (v *validator) str(m map[string]any, path, key string, ok func(string) bool) string {
	x, present := m[key]
	if !present {
		v.fail("%s.%s: missing", path, key)
		return ""
	}
	s, isStr := x.(string)
	switch {
	case !isStr:
		v.fail("%s.%s: not a string", path, key)
	case strings.TrimSpace(s) == "":
		v.fail("%s.%s: empty (GitHub rejects empty required strings)", path, key)
	case ok != nil && !ok(s):
		v.fail("%s.%s: %q is not allowed", path, key, s)
	}
	return s
}

func (v *validator) message(m map[string]any, path, key string, maxLen int) {
	o := v.obj(m, path, key, true)
	if o == nil {
		return
	}
	s := v.str(o, path+"."+key, "text", nil)
	if maxLen > 0 && utf8.RuneCountInString(s) > maxLen {
		v.fail("%s.%s.text: %d characters, over %d", path, key, utf8.RuneCountInString(s), maxLen)
	}
}

func (v *validator) run(path string, run map[string]any, categories map[string]bool) {
	tool := v.obj(run, path, "tool", true)
	if tool == nil {
		return
	}
	driver := v.obj(tool, path+".tool", "driver", true)
	if driver == nil {
		return
	}
	v.str(driver, path+".tool.driver", "name", nil)
	rules := v.arr(driver, path+".tool.driver", "rules", 0, maxRules)
	ruleIDs := make([]string, len(rules))
	seen := map[string]bool{}
	for i, r := range rules {
		rp := fmt.Sprintf("%s.tool.driver.rules[%d]", path, i)
		rule, ok := r.(map[string]any)
		if !ok {
			v.fail("%s: not an object", rp)
			continue
		}
		id := v.str(rule, rp, "id", nil)
		ruleIDs[i] = id
		if seen[id] {
			v.fail("%s: duplicate rule id %q", rp, id)
		}
		seen[id] = true
		if name, ok := rule["name"].(string); ok {
			if utf8.RuneCountInString(name) > maxRuleName || name == id || name == "" {
				v.fail("%s.name: %q (at most %d characters, not the id)", rp, name, maxRuleName)
			}
		}
		v.message(rule, rp, "shortDescription", maxDescription)
		v.message(rule, rp, "fullDescription", maxDescription)
		v.message(rule, rp, "help", 0)
		if dc := v.obj(rule, rp, "defaultConfiguration", false); dc != nil {
			if l, ok := dc["level"].(string); ok && !isLevel(l) {
				v.fail("%s.defaultConfiguration.level: %q", rp, l)
			}
		}
		if props := v.obj(rule, rp, "properties", false); props != nil {
			v.ruleProperties(rp+".properties", props)
		}
	}
	if ad := v.obj(run, path, "automationDetails", false); ad != nil {
		id, _ := ad["id"].(string)
		cat := id
		if i := strings.LastIndexByte(id, '/'); i >= 0 {
			cat = id[:i]
		}
		if id == "" {
			v.fail("%s.automationDetails.id: empty", path)
		}
		if categories[cat] {
			v.fail("%s: a second run with category %q (GitHub rejects the upload)", path, cat)
		}
		categories[cat] = true
	}
	if ck, ok := run["columnKind"].(string); ok && ck != "utf16CodeUnits" && ck != "unicodeCodePoints" {
		v.fail("%s.columnKind: %q", path, ck)
	}
	results := v.arr(run, path, "results", 0, maxResults)
	if _, ok := run["results"]; !ok {
		v.fail("%s.results: missing (write an empty array)", path)
	}
	for i, r := range results {
		rp := fmt.Sprintf("%s.results[%d]", path, i)
		res, ok := r.(map[string]any)
		if !ok {
			v.fail("%s: not an object", rp)
			continue
		}
		v.result(rp, res, ruleIDs)
	}
}

func (v *validator) ruleProperties(path string, p map[string]any) {
	if tags, ok := p["tags"]; ok {
		a, ok := tags.([]any)
		if !ok || len(a) > maxTags {
			v.fail("%s.tags: want at most %d strings, got %v", path, maxTags, tags)
		}
		for _, t := range a {
			if s, ok := t.(string); !ok || s == "" {
				v.fail("%s.tags: %v is not a non-empty string", path, t)
			}
		}
	}
	if pr, ok := p["precision"]; ok {
		switch pr {
		case "very-high", "high", "medium", "low":
		default:
			v.fail("%s.precision: %v", path, pr)
		}
	}
	if ps, ok := p["problem.severity"]; ok {
		switch ps {
		case "error", "warning", "recommendation":
		default:
			v.fail("%s.problem.severity: %v", path, ps)
		}
	}
	if ss, ok := p["security-severity"]; ok {
		s, _ := ss.(string)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0.1 || f > 10 {
			v.fail("%s.security-severity: %v (a number from 0.1 to 10, as a string)", path, ss)
		}
	}
}

func (v *validator) result(path string, res map[string]any, ruleIDs []string) {
	id := v.str(res, path, "ruleId", nil)
	if idx, ok := res["ruleIndex"]; ok {
		n, err := strconv.Atoi(fmt.Sprint(idx))
		if err != nil || n < 0 || n >= len(ruleIDs) || ruleIDs[n] != id {
			v.fail("%s.ruleIndex: %v does not point at rule %q", path, idx, id)
		}
	} else if !contains(ruleIDs, id) {
		v.fail("%s.ruleId: %q is not among the driver's rules", path, id)
	}
	if l, ok := res["level"].(string); ok && !isLevel(l) {
		v.fail("%s.level: %q", path, l)
	}
	v.message(res, path, "message", 0)
	locs := v.arr(res, path, "locations", 0, maxLocations)
	for i, l := range locs {
		v.location(fmt.Sprintf("%s.locations[%d]", path, i), l, true)
	}
	ids := map[string]bool{}
	for i, l := range v.arr(res, path, "relatedLocations", 0, maxLocations) {
		lp := fmt.Sprintf("%s.relatedLocations[%d]", path, i)
		v.location(lp, l, true)
		if m, ok := l.(map[string]any); ok {
			id := fmt.Sprint(m["id"])
			if ids[id] {
				v.fail("%s.id: duplicate %s", lp, id)
			}
			ids[id] = true
		}
	}
	if pf := v.obj(res, path, "partialFingerprints", false); pf != nil {
		for k, x := range pf {
			if s, ok := x.(string); !ok || s == "" {
				v.fail("%s.partialFingerprints.%s: not a non-empty string", path, k)
			}
		}
	}
	if bs, ok := res["baselineState"]; ok {
		switch bs {
		case "new", "unchanged", "updated", "absent":
		default:
			v.fail("%s.baselineState: %v", path, bs)
		}
	}
	for i, s := range v.arr(res, path, "suppressions", 0, 1<<20) {
		sp := fmt.Sprintf("%s.suppressions[%d]", path, i)
		sup, ok := s.(map[string]any)
		if !ok {
			v.fail("%s: not an object", sp)
			continue
		}
		v.str(sup, sp, "kind", func(k string) bool { return k == "inSource" || k == "external" })
		if st, ok := sup["status"]; ok && st != "accepted" && st != "underReview" && st != "rejected" {
			v.fail("%s.status: %v", sp, st)
		}
		if g, ok := sup["guid"].(string); ok && !guidRE.MatchString(g) {
			v.fail("%s.guid: %q is not a GUID", sp, g)
		}
		if l, ok := sup["location"]; ok {
			v.location(sp+".location", l, false)
		}
	}
}

func (v *validator) location(path string, l any, needPhysical bool) {
	loc, ok := l.(map[string]any)
	if !ok {
		v.fail("%s: not an object", path)
		return
	}
	pl := v.obj(loc, path, "physicalLocation", needPhysical)
	if pl == nil {
		return
	}
	al := v.obj(pl, path+".physicalLocation", "artifactLocation", true)
	if al != nil {
		uri := v.str(al, path+".physicalLocation.artifactLocation", "uri", nil)
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "" || strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "./") {
			v.fail("%s: uri %q is not a repository-relative reference", path, uri)
		}
	}
	reg := v.obj(pl, path+".physicalLocation", "region", false)
	if reg == nil {
		return
	}
	num := func(k string) (int, bool) {
		x, ok := reg[k]
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(fmt.Sprint(x))
		if err != nil {
			v.fail("%s.region.%s: %v is not an integer", path, k, x)
		}
		return n, true
	}
	start, hasStart := num("startLine")
	if !hasStart || start < 1 {
		v.fail("%s.region.startLine: want ≥ 1 (GitHub needs a line)", path)
	}
	if end, ok := num("endLine"); ok && end < start {
		v.fail("%s.region.endLine %d before startLine %d", path, end, start)
	}
	sc, hasSC := num("startColumn")
	if hasSC && sc < 1 {
		v.fail("%s.region.startColumn: %d", path, sc)
	}
	if ec, ok := num("endColumn"); ok {
		end, hasEnd := num("endLine")
		if ec < 1 || ((!hasEnd || end == start) && hasSC && ec < sc) {
			v.fail("%s.region.endColumn: %d before startColumn %d", path, ec, sc)
		}
	}
}

func isLevel(l string) bool { return l == "error" || l == "warning" || l == "note" || l == "none" }

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// MultitoolPath finds Microsoft's SARIF Multitool: $SARIF_MULTITOOL, or
// Sarif.Multitool / sarif-multitool-linux / sarif-multitool on PATH (the
// npm package @microsoft/sarif-multitool-linux).
func MultitoolPath() string {
	if p := os.Getenv("SARIF_MULTITOOL"); p != "" {
		return p
	}
	if p, err := exec.LookPath("Sarif.Multitool"); err == nil {
		return p
	}
	// npm links its bin wrapper (a node script that runs the tool through a
	// shell, which would split "Gh;Sarif"); use the binary beside it.
	for _, name := range []string{"sarif-multitool-linux", "sarif-multitool"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			bin := filepath.Join(filepath.Dir(real), "Sarif.Multitool")
			if st, err := os.Stat(bin); err == nil && st.Mode()&0o111 != 0 {
				return bin
			}
		}
	}
	return ""
}

// Multitool validates files with the SARIF Multitool using GitHub's and
// SARIF's rules (--rule-kind "Gh;Sarif"), failing the test on any error or
// warning it reports. It skips the test when the tool is not installed.
func Multitool(t *testing.T, files ...string) {
	t.Helper()
	tool := MultitoolPath()
	if tool == "" {
		t.Skip("SARIF Multitool not installed (npm install -g @microsoft/sarif-multitool-linux, or set SARIF_MULTITOOL); the structural checks still ran")
	}
	out := filepath.Join(t.TempDir(), "validation.sarif")
	// Files first: --rule-kind takes a list and would swallow them.
	args := append(append([]string{"validate"}, files...), "--rule-kind", "Gh;Sarif", "--output", out)
	cmd := exec.Command(tool, args...)
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	console, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Sarif.Multitool validate: %v\n%s", err, console)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("Sarif.Multitool wrote no result: %v\n%s", err, console)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("Sarif.Multitool output: %v", err)
	}
	for _, run := range log.Runs {
		for _, r := range run.Results {
			// A result without a level is a warning (SARIF's default).
			if r.Level == "" || r.Level == "error" || r.Level == "warning" {
				t.Errorf("Sarif.Multitool %s %s: %s %v", r.Level, r.RuleID, r.Message.Text, r.Message.Arguments)
			}
		}
	}
	if t.Failed() {
		t.Logf("console:\n%s", console)
	}
}
