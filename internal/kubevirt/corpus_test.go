package kubevirt

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

const corpusTemplates = "kubevirt-common-templates/common-templates-v0.35.0.yaml"

// readCorpus returns the common-templates bundle's text.
func readCorpus(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(testcorpus.Dir(t, corpusTemplates))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkBundle loads a bundle text as one file, processes every Template
// with its parameter defaults, and runs the engine.
func checkBundle(t *testing.T, text string) ([]finding.Finding, *Section) {
	t.Helper()
	var templates []*manifest.Object
	for _, o := range parseObjects(t, "common-templates.yaml", text, ".") {
		if isTemplate(o) {
			templates = append(templates, o)
		}
	}
	if len(templates) != 172 {
		t.Fatalf("%d Templates in the bundle, want 172", len(templates))
	}
	out := run(t, nil, templateTarget(t, ".", templates))
	return out.Findings, section(out)
}

// Every one of the 172 common templates passes its own rules, evaluated on
// its own VM after parameter processing. The sata flavours of Windows get
// the windows-virtio-bus warning (a justWarning rule); the 21 templates
// sized `guest: 1.5Gi` pass because quantities are compared in bytes.
func TestCommonTemplatesPassTheirOwnRules(t *testing.T) {
	findings, sec := checkBundle(t, readCorpus(t))
	warned := map[string]bool{}
	for _, f := range findings {
		if f.Level != finding.Warning || f.RuleID != "kubevirt/windows-virtio-bus" {
			t.Errorf("unexpected finding: %s", f.String())
			continue
		}
		warned[f.Object.Name] = true
	}
	if len(warned) != 12 {
		t.Errorf("%d VMs with the virtio warning, want 12 (the sata Windows flavours)", len(warned))
	}
	if sec.Summary.VirtualMachines != 172 || sec.Summary.Allowed != 172 || sec.Summary.Rejected != 0 {
		t.Errorf("summary %+v, want 172 VMs all allowed", sec.Summary)
	}
	oneAndAHalf := 0
	for _, vm := range sec.VirtualMachines {
		if vm.RuleSource != SourceVM || vm.Template == "" || len(vm.Rules) == 0 {
			t.Errorf("%s: source %s template %q rules %d", vm.Object.Name, vm.RuleSource, vm.Template, len(vm.Rules))
		}
		for _, r := range vm.Rules {
			if r.Name == "minimal-required-memory" && strings.Contains(r.Detail, "[1610612736]") && r.Outcome == "satisfied" && strings.HasPrefix(r.Detail, "All values [1610612736]") {
				oneAndAHalf++
			}
		}
	}
	if oneAndAHalf != 21 {
		t.Errorf("%d templates with guest 1.5Gi at their 1.5Gi minimum, want 21", oneAndAHalf)
	}
}

// mutate replaces old with new once inside the named template's section of
// the bundle and returns the text and the line of the replacement.
func mutate(t *testing.T, text, template, old, new string) (string, int) {
	t.Helper()
	marker := "# Source: dist/templates/" + template + ".yaml\n"
	start := strings.Index(text, marker)
	if start < 0 {
		t.Fatalf("template %s not in the bundle", template)
	}
	end := strings.Index(text[start+len(marker):], "\n---")
	block := text[start : start+len(marker)+end]
	i := strings.Index(block, old)
	if i < 0 {
		t.Fatalf("%q not in %s", old, template)
	}
	at := start + i
	return text[:at] + new + text[at+len(old):], strings.Count(text[:at], "\n") + 1
}

// newFindings drops the findings the unmutated bundle has too (the
// virtio warnings of the sata Windows flavours), sorted.
func newFindings(base, fs []finding.Finding) []finding.Finding {
	seen := map[string]bool{}
	for _, f := range base {
		seen[f.Fingerprint+f.Message] = true
	}
	var out []finding.Finding
	for _, f := range fs {
		if !seen[f.Fingerprint+f.Message] {
			out = append(out, f)
		}
	}
	finding.Sort(out)
	return out
}

func TestMutatedCommonTemplatesFail(t *testing.T) {
	corpus := readCorpus(t)
	base, _ := checkBundle(t, corpus)
	cases := []struct {
		name, template, old, new string
		want                     []string // level: message [rule], all at the mutated line
	}{
		{"memory below the minimum", "rhel9-server-tiny", "guest: 1.5Gi", "guest: 1Gi",
			[]string{"error: This VM requires more memory.: value 1073741824 is lower than minimum [1610612736] [kubevirt/minimal-required-memory]"}},
		{"memory just below the minimum in another unit", "windows11-desktop-medium", "guest: 4Gi", "guest: 4095Mi",
			[]string{"error: This VM requires more memory.: value 4293918720 is lower than minimum [4294967296] [kubevirt/minimal-required-memory]"}},
		{"a wrong disk bus", "windows2k22-server-medium", "bus: sata", "bus: ide",
			[]string{
				"error: disk bus has to be either virtio or sata or scsi: Some of [ide] are not in [virtio, sata, scsi] [kubevirt/windows-disk-bus]",
				"warning: virtio disk bus type has better performance, install virtio drivers in VM and change bus type: Some of [ide] are not in [virtio] [kubevirt/windows-virtio-bus]",
			}},
		{"too few cores on Windows 11", "windows11-desktop-medium", "cores: 2", "cores: 1",
			[]string{"error: This VM requires more cores.: value 1 is lower than minimum [2] [kubevirt/minimal-required-cores]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, line := mutate(t, corpus, c.template, c.old, c.new)
			findings, sec := checkBundle(t, text)
			var got []string
			for _, f := range newFindings(base, findings) {
				if f.Object.Name != nameOf(c.template) {
					continue
				}
				if f.Location.Line != line || f.Location.File != "common-templates.yaml" {
					t.Errorf("%s at %s:%d, want line %d", f.RuleID, f.Location.File, f.Location.Line, line)
				}
				got = append(got, fmt.Sprintf("%s: %s [%s]", f.Level, f.Message, f.RuleID))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			rejected := 0
			for _, vm := range sec.VirtualMachines {
				if !vm.Allowed {
					rejected++
				}
			}
			if rejected != 1 {
				t.Errorf("%d VMs rejected, want 1", rejected)
			}
		})
	}
}

// The Windows 11 rule is a minimum: more cores pass, and two sockets of one
// core fail (kubevirt-ui/kubevirt-plugin#2999).
func TestWindows11Cores(t *testing.T) {
	corpus := readCorpus(t)
	base, _ := checkBundle(t, corpus)
	text, _ := mutate(t, corpus, "windows11-desktop-medium", "cores: 2", "cores: 64")
	findings, _ := checkBundle(t, text)
	for _, f := range newFindings(base, findings) {
		if f.Object.Name == nameOf("windows11-desktop-medium") {
			t.Errorf("64 cores: %s", f.String())
		}
	}
	text, _ = mutate(t, corpus, "windows11-desktop-medium", "sockets: 1\n            cores: 2", "sockets: 2\n            cores: 1")
	findings, _ = checkBundle(t, text)
	n := 0
	for _, f := range findings {
		if f.Object.Name == nameOf("windows11-desktop-medium") && f.RuleID == "kubevirt/minimal-required-cores" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("2 sockets x 1 core: %d cores findings, want 1", n)
	}
}

// nameOf is the processed VM's name: the NAME parameter is generated, and
// the test processing makes it <template>-name.
func nameOf(template string) string { return template + "-name" }
