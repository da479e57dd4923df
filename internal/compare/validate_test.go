package compare

import (
	"fmt"
	"strings"
	"testing"
)

// cmNamed is a template for the ConfigMap of one name.
func cmNamed(name string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n", name)
}

func inputsNamed(names ...string) string {
	var docs []string
	for _, n := range names {
		docs = append(docs, cmNamed(n))
	}
	return strings.Join(docs, "---\n")
}

func TestV2ComponentRules(t *testing.T) {
	templates := map[string]string{"a.yaml": cmNamed("a"), "b.yaml": cmNamed("b"), "c.yaml": cmNamed("c")}
	cases := []struct {
		group    string
		inputs   []string
		msg      string // "" for no issue
		listed   string
		count    int
		descShow bool
	}{
		{AllOf, []string{"a", "b", "c"}, "", "", 0, false},
		{AllOf, []string{"a"}, MsgMissing, "b.yaml,c.yaml", 2, true},
		{AllOf, nil, MsgMissing, "a.yaml,b.yaml,c.yaml", 3, true},
		{AllOrNoneOf, nil, "", "", 0, false},
		{AllOrNoneOf, []string{"a", "b", "c"}, "", "", 0, false},
		{AllOrNoneOf, []string{"b"}, MsgMissing, "a.yaml,c.yaml", 2, false},
		{AnyOf, nil, "", "", 0, false},
		{AnyOf, []string{"a", "c"}, "", "", 0, false},
		{OneOf, []string{"b"}, "", "", 0, false},
		{OneOf, nil, MsgOneRequired, "a.yaml,b.yaml,c.yaml", 1, false},
		{OneOf, []string{"a", "c"}, MsgOnlyOne, "a.yaml,c.yaml", 0, false},
		{AnyOneOf, nil, "", "", 0, false},
		{AnyOneOf, []string{"c"}, "", "", 0, false},
		{AnyOneOf, []string{"a", "b"}, MsgOnlyOne, "a.yaml,b.yaml", 0, false},
		{NoneOf, nil, "", "", 0, false},
		{NoneOf, []string{"b"}, MsgNoneOf, "b.yaml", 0, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%v", c.group, c.inputs), func(t *testing.T) {
			files := v2Ref(c.group, templates, "a.yaml", "b.yaml", "c.yaml")
			files["metadata.yaml"] = strings.Replace(files["metadata.yaml"], "      - name: c\n", "      - name: c\n        description: the component\n", 1)
			ref := mustLoad(t, files)
			res := compareInputs(t, ref, inputsNamed(c.inputs...), Options{})
			out := res.Report(ReportOptions{})
			if c.msg == "" {
				if len(res.Issues) != 0 || out.HasDrift() {
					t.Fatalf("unexpected issues %+v (drift %v)", res.Issues, out.HasDrift())
				}
				return
			}
			if len(res.Issues) != 1 {
				t.Fatalf("%d issues", len(res.Issues))
			}
			is := res.Issues[0]
			var listed []string
			for _, tp := range is.Templates {
				listed = append(listed, tp.Path)
			}
			if is.Msg != c.msg || strings.Join(listed, ",") != c.listed || is.Count != c.count || res.NumMissing != c.count {
				t.Errorf("issue %q %v count %d (NumMissing %d); want %q %s count %d", is.Msg, listed, is.Count, res.NumMissing, c.msg, c.listed, c.count)
			}
			// Every issue, even one counting zero, is drift (exit 1).
			if !out.HasDrift() {
				t.Error("an issue must make the run exit 1")
			}
			vi := out.Summary.ValidationIssues["p"]["c"]
			if vi.Msg != c.msg || (len(vi.CRMetadata) > 0) != c.descShow {
				t.Errorf("report issue %+v", vi)
			}
		})
	}
}

func TestV1ComponentTypes(t *testing.T) {
	metadata := func(typ string) string {
		typeLine := ""
		if typ != "-" {
			typeLine = "        type: " + typ + "\n"
		}
		return "parts:\n  - name: p\n    components:\n      - name: c\n" + typeLine +
			"        requiredTemplates:\n          - path: a.yaml\n            description: need a\n          - path: b.yaml\n" +
			"        optionalTemplates:\n          - path: c.yaml\n"
	}
	cases := []struct {
		typ     string
		inputs  []string
		missing string
	}{
		{TypeRequired, nil, "a.yaml,b.yaml"},
		{TypeRequired, []string{"c"}, "a.yaml,b.yaml"},
		{TypeRequired, []string{"a", "b"}, ""},
		{TypeOptional, nil, ""},
		{TypeOptional, []string{"c"}, ""}, // optional templates do not trigger the required set
		{TypeOptional, []string{"a"}, "b.yaml"},
		{"-", nil, ""},        // no type: never reports (kube-compare behaviour, warned at load)
		{"required", nil, ""}, // wrong case: same
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%v", c.typ, c.inputs), func(t *testing.T) {
			ref := mustLoad(t, map[string]string{"metadata.yaml": metadata(c.typ), "a.yaml": cmNamed("a"), "b.yaml": cmNamed("b"), "c.yaml": cmNamed("c")})
			res := compareInputs(t, ref, inputsNamed(c.inputs...), Options{})
			var missing []string
			for _, is := range res.Issues {
				if is.Msg != MsgMissing {
					t.Errorf("message %q", is.Msg)
				}
				for _, tp := range is.Templates {
					missing = append(missing, tp.Path)
				}
			}
			if strings.Join(missing, ",") != c.missing || res.NumMissing != len(missing) {
				t.Errorf("missing %v (NumMissing %d), want %s", missing, res.NumMissing, c.missing)
			}
			if c.missing != "" && strings.HasPrefix(c.missing, "a.yaml") {
				if d := res.Report(ReportOptions{}).Summary.ValidationIssues["p"]["c"].CRMetadata["a.yaml"].Description; d != "need a" {
					t.Errorf("v1 missing entries carry their description, got %q", d)
				}
			}
		})
	}
}
