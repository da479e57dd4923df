package compare

import (
	"strings"
	"testing"
)

func inlineRef(t *testing.T, fn string, fields []string, data string) *Reference {
	t.Helper()
	var pf strings.Builder
	for _, f := range fields {
		pf.WriteString("                - pathToKey: " + f + "\n                  inlineDiffFunc: " + fn + "\n")
	}
	return mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n            config:\n              perField:\n" + pf.String(),
		"cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" + data,
	})
}

func inlineInput(data string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" + data
}

func TestInlineRegex(t *testing.T) {
	ref := inlineRef(t, InlineRegex, []string{"data.image", "data.tag", "data.partial"}, `
  image: 'registry\.example\.com/(?<repo>[a-z]+):[0-9.]+'
  tag: 'v(?<major>[0-9]+)\.x'
  partial: 'ab+'
`[1:])
	cases := []struct {
		name, input string
		diff        []string // expected diff lines; none means no difference
	}{
		{"match", "  image: registry.example.com/shop:1.2.3\n  tag: v2.x\n  partial: abbb\n", nil},
		{"no match keeps the pattern", "  image: docker.io/shop:1.2.3\n  tag: v2.x\n  partial: abbb\n",
			[]string{`-  image: registry\.example\.com/(?<repo>[a-z]+):[0-9.]+`, "+  image: docker.io/shop:1.2.3"}},
		{"partial match shows the text outside the match", "  image: registry.example.com/shop:1.2.3\n  tag: v2.x\n  partial: xxabb\n",
			[]string{"-  partial: abb", "+  partial: xxabb"}},
		{"absent in the input: ordinary diff", "  tag: v2.x\n  partial: ab\n",
			[]string{`-  image: registry\.example\.com/(?<repo>[a-z]+):[0-9.]+`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := compareInputs(t, ref, inlineInput(c.input), Options{})
			cmp := compared(t, res, "v1_ConfigMap_cm")
			if len(c.diff) == 0 {
				if cmp.HasDiff {
					t.Errorf("unexpected diff:\n%s", cmp.DiffOutput())
				}
				return
			}
			mustContain(t, cmp.DiffOutput(), c.diff...)
		})
	}
}

func TestInlineCaptureGroups(t *testing.T) {
	ref := inlineRef(t, InlineCaptureGroups, []string{"data.conf", "data.opts"}, `
  conf: |
    [global]
    domainNumber (?<domain>[0-9]+)
    priority2 (?<priority>[0-9]+)
    governor=(?<gov>[[:alpha:]]+)
    comment (?<any>.*)
  opts: "-a -r -n (?<domain>[0-9]+)"
`[1:])
	conf := func(domain, prio, gov, any string) string {
		return "  conf: |\n    [global]\n    domainNumber " + domain + "\n    priority2 " + prio + "\n    governor=" + gov + "\n    comment " + any + "\n"
	}
	cases := []struct {
		name, input string
		diff        []string
	}{
		{"values captured", conf("24", "128", "performance", "free text here") + "  opts: -a -r -n 24\n", nil},
		{"an empty .* group", conf("24", "128", "performance", "") + "  opts: -a -r -n 24\n", nil},
		{"a value the group rejects shows the group", conf("24", "high", "performance", "x") + "  opts: -a -r -n 24\n",
			[]string{"-    priority2 (?<priority>[0-9]+)", "+    priority2 high"}},
		{"literal text must match", strings.Replace(conf("24", "128", "performance", "x"), "[global]", "[globals]", 1) + "  opts: -a -r -n 24\n",
			[]string{"-    [global]", "+    [globals]"}},
		{"groups of one name must agree across fields", conf("24", "128", "performance", "x") + "  opts: -a -r -n 25\n",
			// kube-compare pkg/compare/capturegroupsInlineDiff.go names the
			// group as "(?<name>…)" in the warning, as the regex function
			// (pkg/compare/regexInlineDiff.go) does.
			[]string{"-    domainNumber (?<domain>=24)", "WARNING: Capturegroup (?<domain>…) matched multiple values: « 24 | 25 »"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmp := compared(t, compareInputs(t, ref, inlineInput(c.input), Options{}), "v1_ConfigMap_cm")
			if len(c.diff) == 0 {
				if cmp.HasDiff {
					t.Errorf("unexpected diff:\n%s", cmp.DiffOutput())
				}
				return
			}
			mustContain(t, cmp.DiffOutput(), c.diff...)
		})
	}
}

func TestInlineFieldMissingFromTheReference(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n            config:\n              perField:\n                - pathToKey: data.gone\n                  inlineDiffFunc: regex\n",
		"cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  {{ if .data.present }}gone: 'x.*'{{ end }}\n",
	})
	res := compareInputs(t, ref, inlineInput("  other: 1\n"), Options{})
	if len(res.Errors) != 1 {
		t.Fatalf("errors %v", res.Errors)
	}
	mustContain(t, res.Errors[0].Error(), "inline diff function regex: field data.gone Not found as a string in the rendered reference")
}

func TestCaptureGroupParsing(t *testing.T) {
	segs, err := parseCaptureGroups(`a (?<x>[)(]+) b (?P<y>(x|y)\)) c (?<z>[^]a]) d`)
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, s := range segs {
		if s.group {
			groups = append(groups, s.name+"="+s.text)
		}
	}
	want := `x=(?<x>[)(]+) y=(?P<y>(x|y)\)) z=(?<z>[^]a])`
	if strings.Join(groups, " ") != want {
		t.Errorf("groups %q, want %q", strings.Join(groups, " "), want)
	}
	if _, err := parseCaptureGroups("a (?<x>[0-9]"); err == nil {
		t.Error("an unclosed group was accepted")
	}
	if err := validateCaptureGroups("ok (?<a>.*)\nliteral [brackets] and * stars\nbad (?<b>[0-)"); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("validation: %v", err)
	}
}
