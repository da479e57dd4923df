package kubevirt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// FuzzAnnotationLocation writes arbitrary rule texts into a VM's
// vm.kubevirt.io/validations annotation, once as a `|` block and once as a
// double-quoted string, and analyzes the VM. Every finding must name the
// VM's file and a line of it; a problem with the annotation's text must be
// on a line of the annotation (for a block, its own line inside it); and
// the same input must give the same findings twice.
func FuzzAnnotationLocation(f *testing.F) {
	for _, seed := range []string{
		"[]",
		"[\n  {\"name\": \"a\",\n   \"rule\": \"integer\",}\n]",
		`[{"name": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "m", "min": 4}]`,
		"[\n{\"name\": \"x\", \"path\": \"jsonpath::.spec.domain.cpu.cores\",\n \"rule\": \"integer\", \"message\": \"m\", \"min\": \"1Gi\"},\n{\"name\": \"x\"}\n]",
		"[\n  {\"name\": \"bus\", \"path\": \"jsonpath::.spec.domain.devices.disks[*].disk.bus\", \"rule\": \"enum\",\n   \"message\": \"m\", \"values\": [\"sata\"], \"justWarning\": true}\n]",
		"{\"name\": \"a\"}",
		"[1,\n2,\n\"x\"]",
		"[{\"name\": \"r\", \"path\": \"jsonpath::.spec.domain.machine.type\", \"rule\": \"regex\", \"message\": \"m\", \"regex\": \"(?<=x)\"}]",
		"   \n\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rules string) {
		if strings.TrimSpace(rules) == "" || strings.ContainsAny(rules, "\r\t") {
			return // a block scalar cannot hold these as written
		}
		block := vmWith("vm", rules, okDomain)
		quoted, _ := json.Marshal(rules)
		flow := strings.Replace(block, "vm.kubevirt.io/validations: |\n"+indent(rules, 6), "vm.kubevirt.io/validations: "+string(quoted)+"\n", 1)
		for _, c := range []struct {
			text       string
			first, end int // the annotation's lines
		}{
			{block, 6, 6 + strings.Count(strings.TrimRight(rules, "\n"), "\n") + 1},
			{flow, 6, 6},
		} {
			first := analyze(t, c.text)
			if first == nil {
				continue
			}
			lines := manifest.CountLines([]byte(c.text))
			for _, fd := range first {
				l := fd.Location
				if l.File != "vms/vm.yaml" || l.Line < 1 || l.Line > lines {
					t.Fatalf("finding at %s:%d (the file has %d lines): %s\n%s", l.File, l.Line, lines, fd.Message, c.text)
				}
				if fd.RuleID == RuleInvalidValidations && (l.Line < c.first || l.Line > c.end) {
					t.Fatalf("annotation problem at line %d, outside the annotation (lines %d-%d): %s\n%s", l.Line, c.first, c.end, fd.Message, c.text)
				}
			}
			if again := analyze(t, c.text); short(again) != short(first) {
				t.Fatalf("analyzed twice:\n%s\n%s", short(first), short(again))
			}
		}
	})
}

// analyze returns the findings of one VM file, nil when the YAML itself
// does not load (the annotation text broke the block).
func analyze(t *testing.T, text string) []finding.Finding {
	docs, problems := manifest.Parse("vms/vm.yaml", []byte(text), manifest.DefaultLimits)
	if len(problems) > 0 {
		return nil
	}
	var objs []*manifest.Object
	for _, d := range docs {
		o, _ := d.Objects("vms")
		objs = append(objs, o...)
	}
	out := run(t, nil, &render.Target{Name: "vms", Kind: render.KindPlain, Objects: objs})
	finding.Sort(out.Findings)
	return out.Findings
}
