package report

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/mdtext"
)

// SARIF writes the report as SARIF 2.1.0, shaped for GitHub code scanning:
// one run, every rule that ran in tool.driver.rules, results with
// repository-relative locations, related locations, partial fingerprints and
// suppressions, within GitHub's upload limits.
type SARIF struct {
	// Category becomes runAutomationDetails.id ("plumb/" when empty): code
	// scanning keeps one set of alerts per tool and category.
	Category string
	// Limits are GitHub's ingestion limits (zero fields take the defaults).
	Limits SARIFLimits
}

// SARIFLimits are the caps GitHub code scanning applies to an upload
// (research/peers.md §4). Past them GitHub rejects the file or drops data,
// so the sink leaves out the least important results instead.
type SARIFLimits struct {
	Results          int // results per run
	Rules            int // rules per run
	RelatedLocations int // locations per result
	Tags             int // tags per rule
	GzipBytes        int // the gzip-compressed file
}

// DefaultSARIFLimits are GitHub's documented limits.
var DefaultSARIFLimits = SARIFLimits{Results: 25000, Rules: 25000, RelatedLocations: 1000, Tags: 20, GzipBytes: 10 << 20}

// Text limits of rule metadata that code scanning enforces.
const (
	sarifMaxName        = 255
	sarifMaxDescription = 1024
)

// InformationURI is where SARIF consumers learn about the tool.
const InformationURI = "https://github.com/plumb-ci/plumb"

// sarifSchema is the schema URI GitHub's documentation uses.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifFingerprintKey names plumb's fingerprint in partialFingerprints. Code
// scanning computes its own primaryLocationLineHash on upload; this one lets
// any consumer match results across line moves as plumb does.
const sarifFingerprintKey = "plumbFingerprint/v1"

// Write implements Sink.
func (s SARIF) Write(w io.Writer, r *Report) error {
	b, err := s.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal builds the SARIF log and encodes it, indented, with a trailing
// newline. When the encoded file is over the size limit, results are
// dropped least important first until it fits.
func (s SARIF) Marshal(r *Report) ([]byte, error) {
	lim := s.limits()
	candidates := byImportance(r.Findings, func(f *finding.Finding) bool {
		// Fixed findings are gone at head; code scanning closes their
		// alerts because they are absent. A finding about a deleted
		// object has only a base line, which code scanning would read
		// as the head's.
		return !f.AtBase()
	})
	keep := min(len(candidates), lim.Results)
	b, err := s.encode(r, candidates, keep, len(candidates)-keep)
	if err != nil || fitsGzip(b, lim.GzipBytes) {
		return b, err
	}
	// Too large: find the most results that fit (binary search on the
	// count, keeping the most important ones).
	lo, hi := 0, keep-1
	best, err := s.encode(r, candidates, 0, len(candidates))
	if err != nil {
		return nil, err
	}
	for lo <= hi {
		mid := (lo + hi) / 2
		c, err := s.encode(r, candidates, mid, len(candidates)-mid)
		if err != nil {
			return nil, err
		}
		if fitsGzip(c, lim.GzipBytes) {
			best, lo = c, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best, nil
}

func (s SARIF) limits() SARIFLimits {
	l := s.Limits
	d := DefaultSARIFLimits
	if l.Results <= 0 {
		l.Results = d.Results
	}
	if l.Rules <= 0 {
		l.Rules = d.Rules
	}
	if l.RelatedLocations <= 0 {
		l.RelatedLocations = d.RelatedLocations
	}
	if l.Tags <= 0 {
		l.Tags = d.Tags
	}
	if l.GzipBytes <= 0 {
		l.GzipBytes = d.GzipBytes
	}
	return l
}

func fitsGzip(b []byte, limit int) bool {
	if len(b) <= limit {
		return true // gzip never makes JSON larger than this by much; cheap exit
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_, _ = zw.Write(b) // into memory: cannot fail
	_ = zw.Close()
	return buf.Len() <= limit
}

// encode builds the log with the first keep candidates (in importance
// order) and records how many were left out.
func (s SARIF) encode(r *Report, candidates []*finding.Finding, keep, dropped int) ([]byte, error) {
	lim := s.limits()
	kept := slices.Clone(candidates[:keep])
	// Results appear in report order, not importance order, so that the
	// file reads like the other reports and diffs well.
	slices.SortFunc(kept, finding.Compare)

	rules, index := sarifRules(r.Rules, kept, lim)
	log, err := sarif.New(sarif.Version210, false)
	if err != nil {
		return nil, err
	}
	log.Schema = sarifSchema
	driver := &sarif.ToolComponent{
		Name:           "plumb",
		InformationURI: ptr(InformationURI),
		Rules:          rules,
	}
	driver.Version = ptr(sarifVersion(r.Version))
	run := sarif.NewRun(sarif.Tool{Driver: driver})
	run.ColumnKind = "unicodeCodePoints" // yaml.v3 counts columns in runes
	category := s.Category
	if category == "" {
		category = "plumb"
	}
	if !strings.HasSuffix(category, "/") {
		category += "/"
	}
	run.AutomationDetails = &sarif.RunAutomationDetails{ID: ptr(category)}
	run.OriginalUriBaseIDs = map[string]*sarif.ArtifactLocation{
		srcRoot: {Description: sarif.NewTextMessage("The repository root.")},
	}

	for _, f := range kept {
		run.Results = append(run.Results, sarifResult(f, index, lim))
	}
	inv := &sarif.Invocation{ExecutionSuccessful: ptr(true)}
	if dropped > 0 {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, &sarif.Notification{
			Level: "warning",
			Message: sarif.NewTextMessage(fmt.Sprintf(
				"%d less important results were left out to stay within GitHub code scanning's limits (%d results per run, %d MB compressed); the JSON report has every finding.",
				dropped, lim.Results, lim.GzipBytes>>20)),
		})
	}
	run.Invocations = []*sarif.Invocation{inv}
	log.AddRun(run)

	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding SARIF: %w", err)
	}
	return append(b, '\n'), nil
}

// srcRoot is the base the repository-relative URIs resolve against.
const srcRoot = "%SRCROOT%"

// sarifRules lists every rule that ran, plus any rule a kept result names
// that the engines did not describe, within the rules limit (rules that
// kept results use first). It returns the rule index by id.
func sarifRules(described []finding.Rule, kept []*finding.Finding, lim SARIFLimits) ([]*sarif.ReportingDescriptor, map[string]int) {
	byID := make(map[string]finding.Rule, len(described))
	for _, r := range described {
		if _, dup := byID[r.ID]; !dup {
			byID[r.ID] = r
		}
	}
	used := map[string]bool{}
	for _, f := range kept {
		used[f.RuleID] = true
		if _, ok := byID[f.RuleID]; !ok {
			// An engine reported a rule it did not describe: describe it
			// from the finding so the result still links to a rule.
			byID[f.RuleID] = finding.Rule{ID: f.RuleID, Name: f.Title, Short: f.Title, Help: f.Help, Level: f.Level}
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) > lim.Rules {
		// Keep the rules results point at, then the others by id.
		slices.SortStableFunc(ids, func(a, b string) int {
			switch {
			case used[a] && !used[b]:
				return -1
			case used[b] && !used[a]:
				return 1
			}
			return 0
		})
		ids = ids[:lim.Rules]
		sort.Strings(ids)
	}
	out := make([]*sarif.ReportingDescriptor, 0, len(ids))
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
		out = append(out, sarifRule(byID[id], lim))
	}
	return out, index
}

func sarifRule(r finding.Rule, lim SARIFLimits) *sarif.ReportingDescriptor {
	short := firstNonEmpty(r.Short, r.Name, r.Full, r.ID)
	full := firstNonEmpty(r.Full, short)
	helpText := firstNonEmpty(r.Help, r.Full, short)
	d := &sarif.ReportingDescriptor{
		ID:               r.ID,
		Name:             ptr(truncateRunes(ruleName(r), sarifMaxName)),
		ShortDescription: sarif.NewMultiformatMessageString(truncateRunes(sentence(short), sarifMaxDescription)),
		FullDescription:  sarif.NewMultiformatMessageString(truncateRunes(sentence(full), sarifMaxDescription)),
		Help:             sarif.NewMultiformatMessageString(helpText),
		DefaultConfiguration: &sarif.ReportingConfiguration{
			Level: sarifLevel(r.Level),
		},
	}
	if r.Help != "" {
		// Code scanning renders it (its links and images too).
		d.Help.Markdown = ptr(r.Help)
		if !TrustedHelp(r.ID, r.Help) {
			d.Help.Markdown = ptr(mdtext.Untrusted(r.Help))
		}
	}
	props := sarif.Properties{
		"precision":        firstNonEmpty(r.Precision, "high"),
		"problem.severity": problemSeverity(r.Level),
	}
	r.SecuritySeverity = securitySeverity(r)
	if r.SecuritySeverity != "" {
		props["security-severity"] = r.SecuritySeverity
	}
	if tags := sarifTags(r, lim.Tags); len(tags) > 0 {
		props["tags"] = tags
	}
	d.Properties = props
	return d
}

// ruleName is a readable name. SARIF wants it different from the id, so
// rules without one get their id in PascalCase (manifest/duplicate-key →
// ManifestDuplicateKey).
func ruleName(r finding.Rule) string {
	if r.Name != "" && r.Name != r.ID {
		return r.Name
	}
	var b strings.Builder
	up := true
	for _, c := range r.ID {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			if up {
				b.WriteString(strings.ToUpper(string(c)))
			} else {
				b.WriteRune(c)
			}
			up = false
		default:
			up = true
		}
	}
	if b.Len() == 0 || b.String() == r.ID {
		return "Rule" + b.String()
	}
	return b.String()
}

// sarifVersion makes the tool version start with a number, as SARIF
// consumers compare versions: development builds become 0.0.0-dev.
func sarifVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return "0.0.0-" + firstNonEmpty(v, "dev")
	}
	return v
}

// securitySeverity is GitHub's security-severity score of a rule: its own
// when it has one; for a rule tagged security (a check of the catalog's
// Security group) one by level, in the bands code scanning shows — an
// error high (8.0), a warning medium (5.0), a note low (2.0); "" for other
// rules, which code scanning then lists as quality findings.
func securitySeverity(r finding.Rule) string {
	if r.SecuritySeverity != "" {
		return r.SecuritySeverity
	}
	if !slices.ContainsFunc(r.Tags, func(t string) bool { return strings.EqualFold(t, "security") }) {
		return ""
	}
	switch r.Level {
	case finding.Error:
		return "8.0"
	case finding.Warning:
		return "5.0"
	}
	return "2.0"
}

// sarifTags are the rule's tags plus its source, deduplicated, at most
// limit of them. A security rule's tags include "security", lower case, as
// code scanning looks for it.
func sarifTags(r finding.Rule, limit int) []string {
	var tags []string
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] && len(tags) < limit {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	if i := strings.IndexByte(r.ID, '/'); i > 0 {
		add(r.ID[:i])
	}
	for _, t := range r.Tags {
		if strings.EqualFold(t, "security") {
			t = "security"
		}
		add(t)
	}
	if r.SecuritySeverity != "" {
		add("security")
	}
	return tags
}

func sarifResult(f *finding.Finding, index map[string]int, lim SARIFLimits) *sarif.Result {
	res := sarif.NewRuleResult(f.RuleID)
	if i, ok := index[f.RuleID]; ok {
		res.WithRuleIndex(i)
	}
	res.Level = ptr(sarifLevel(f.Level))
	res.Message = *sarif.NewTextMessage(sentence(firstNonEmpty(f.Message, f.Title, f.RuleID)))
	if loc := sarifLocation(f.Location); loc != nil {
		res.Locations = []*sarif.Location{loc}
	}
	for i, rel := range f.Related {
		if i >= lim.RelatedLocations {
			break
		}
		loc := sarifLocation(rel.Location)
		if loc == nil {
			continue
		}
		loc.WithId(i + 1)
		if rel.Message != "" {
			loc.Message = sarif.NewTextMessage(rel.Message)
		}
		res.RelatedLocations = append(res.RelatedLocations, loc)
	}
	if f.Fingerprint != "" {
		res.PartialFingerprints = map[string]any{sarifFingerprintKey: f.Fingerprint}
	}
	switch f.Status {
	case finding.StatusNew:
		res.BaselineState = ptr("new")
	case finding.StatusUnchanged:
		res.BaselineState = ptr("unchanged")
	}
	if sup := f.Suppressed; sup != nil {
		res.Suppressions = []*sarif.Suppression{sarifSuppression(f, sup)}
	}
	res.Fixes = sarifFixes(f)
	props := sarif.Properties{"source": f.Source}
	if !f.Object.IsZero() {
		props["object"] = f.Object.String()
		if f.Object.Target != "" {
			props["target"] = f.Object.Target
		}
	}
	if len(f.Path) > 0 {
		props["path"] = f.Path.String()
	}
	if f.Status != "" {
		props["status"] = f.Status
	}
	if len(f.Tags) > 0 {
		props["tags"] = f.Tags[:min(len(f.Tags), lim.Tags)]
	}
	res.Properties = props
	return res
}

// sarifLocation is a repository-relative physical location; nil when the
// finding names no file.
func sarifLocation(l finding.Location) *sarif.Location {
	if l.File == "" {
		return nil
	}
	region := &sarif.Region{StartLine: ptr(max(l.Line, 1))}
	if l.Column > 0 {
		region.StartColumn = ptr(l.Column)
	}
	if l.EndLine >= max(l.Line, 1) {
		region.EndLine = ptr(l.EndLine)
		if l.EndColumn > 0 && (l.EndLine > l.Line || l.EndColumn >= l.Column) {
			region.EndColumn = ptr(l.EndColumn)
		}
	}
	return sarif.NewLocationWithPhysicalLocation(&sarif.PhysicalLocation{
		ArtifactLocation: &sarif.ArtifactLocation{URI: ptr(fileURI(l.File)), URIBaseId: ptr(srcRoot)},
		Region:           region,
	})
}

// fileURI escapes a repository path as a relative URI reference. A colon
// is escaped too: in a first segment it would read as a URI scheme.
func fileURI(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(parts, "/")
}

// sarifSuppression fills every field: go-sarif writes absent ones as null,
// which the schema rejects.
func sarifSuppression(f *finding.Finding, s *finding.Suppression) *sarif.Suppression {
	kind := "external"
	if s.Kind == "annotation" {
		kind = "inSource"
	}
	loc := sarifLocation(s.Source)
	if loc == nil {
		loc = sarifLocation(f.Location)
	}
	if loc == nil {
		loc = &sarif.Location{}
	}
	reason := firstNonEmpty(s.Reason, "no reason given")
	if s.Until != "" {
		reason += " (until " + s.Until + ")"
	}
	return &sarif.Suppression{
		Kind:          kind,
		Status:        ptr("accepted"),
		Location:      loc,
		Guid:          ptr(stableGUID(f.Fingerprint + "\x00suppression")),
		Justification: ptr(reason),
	}
}

// stableGUID derives a GUID from a string, so reports stay byte-identical.
func stableGUID(s string) string {
	h := sha256.Sum256([]byte(s))
	h[6] = h[6]&0x0f | 0x50 // version 5 layout
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func sarifLevel(l finding.Level) string {
	switch l {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "note"
}

// problemSeverity is GitHub's problem.severity: error, warning or
// recommendation.
func problemSeverity(l finding.Level) string {
	switch l {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "recommendation"
}

// sentence makes a message end like a sentence, as SARIF consumers expect.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return s
	}
	return s + "."
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func ptr[T any](v T) *T { return &v }
