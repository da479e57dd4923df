package checks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// inTemplate locates fields of an object held in a Template's objects[].
type inTemplate struct {
	doc  *manifest.Document
	root *yaml.Node
}

func (p inTemplate) Locate(path manifest.Path) (manifest.Location, bool) {
	return p.doc.LocateFrom(p.root, path)
}

// TestKubeVirtChecksOnTheCommonTemplates runs the KubeVirt checks of the
// default catalog over the 172 VirtualMachines of the KubeVirt common
// templates and compares their outcomes with what the manifests say.
func TestKubeVirtChecksOnTheCommonTemplates(t *testing.T) {
	file := filepath.Join(testcorpus.Dir(t), "kubevirt-common-templates", "common-templates-v0.35.0.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	docs, problems := manifest.Parse("common-templates.yaml", data, manifest.Limits{})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	target := &render.Target{Name: "templates", Kind: render.KindPlain}
	wantSata := map[string]bool{}
	for _, d := range docs {
		tmpl, _ := d.Value.(map[string]any)
		objs, _ := tmpl["objects"].([]any)
		for i, o := range objs {
			content, _ := o.(map[string]any)
			if content["kind"] != "VirtualMachine" {
				continue
			}
			_, node := manifest.NodeAt(d.Node, manifest.Path{manifest.Key("objects"), manifest.Index(i)})
			id := manifest.IDOf(content, target.Name)
			id.Name = tmpl["metadata"].(map[string]any)["name"].(string) // the VM name is a parameter
			target.Objects = append(target.Objects, &manifest.Object{ID: id, Content: content, Origin: inTemplate{d, node}})
			disks, _ := manifest.Lookup(content, manifest.MustParsePath("spec.template.spec.domain.devices.disks"))
			for _, dk := range disks.([]any) {
				if bus, _ := manifest.Lookup(dk, manifest.MustParsePath("disk.bus")); bus == "sata" {
					wantSata[id.Name] = true
				}
			}
		}
	}
	if len(target.Objects) != 172 {
		t.Fatalf("%d VMs, want 172", len(target.Objects))
	}
	cat := defaultCatalog(t)
	var checks []*Check
	for _, id := range []string{"K10001", "K10002", "K10003", "K10004"} {
		checks = append(checks, cat.Get(id))
	}
	out, err := NewAnalyzer(checks, nil).Analyze(context.Background(), &analyzer.Input{Targets: []*render.Target{target}})
	if err != nil {
		t.Fatal(err)
	}
	res := out.Section.(*Result)
	for _, cr := range res.CheckResults {
		for a := range cr.AgentsCheckResults.All() {
			if a.IsError() {
				t.Errorf("%s %s: %s", cr.CheckID, a.AgentID, a.ErrorType)
				continue
			}
			for _, ev := range a.Evaluations {
				if ev.Error != nil {
					t.Errorf("%s %s: %v", cr.CheckID, a.AgentID, ev.Error)
				}
			}
		}
	}
	lines := strings.Split(string(data), "\n")
	count := map[string]int{}
	sataVMs := map[string]bool{}
	for _, f := range out.Findings {
		count[f.RuleID+" "+f.Level.String()]++
		if f.Location.File != "common-templates.yaml" || f.Location.Line < 1 {
			t.Errorf("finding without a location: %+v", f)
			continue
		}
		if f.RuleID == "check/K10003" {
			sataVMs[f.Object.Name] = true
			// The finding is on the disk entry whose bus is sata.
			entry := strings.Join(lines[f.Location.Line-1:f.Location.Line+3], "\n")
			if !strings.Contains(entry, "bus: sata") || f.Level != finding.Warning {
				t.Errorf("K10003 finding at %d is not on a sata disk:\n%s", f.Location.Line, entry)
			}
		}
	}
	if count["check/K10001 warning"] != 0 || count["check/K10004 warning"] != 0 {
		t.Errorf("runStrategy Halted and guest memory >= 1Gi everywhere, yet: %v", count)
	}
	if count["check/K10002 warning"] != 172 {
		t.Errorf("no common template sets evictionStrategy, yet %d findings", count["check/K10002 warning"])
	}
	t.Logf("%d VMs, %d with a sata disk; findings %v", len(target.Objects), len(wantSata), count)
	if len(wantSata) == 0 || len(sataVMs) != len(wantSata) {
		t.Errorf("sata disks in %d VMs, K10003 warned about %d", len(wantSata), len(sataVMs))
	}
	for name := range wantSata {
		if !sataVMs[name] {
			t.Errorf("%s has a sata disk but no K10003 warning", name)
		}
	}
}
