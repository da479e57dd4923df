package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/shard"
)

func TestSuppressionsKeepTheirPositions(t *testing.T) {
	f, err := ParseFile(".plumb.yaml", []byte(`suppressions:
  - rule: check/*
    reason: legacy apps, tracked in JIRA-12
  - fingerprint: 0123abcd
    object: {kind: Deployment, namespace: shop, name: "web-*"}
    field: spec.template.spec.containers[0].image
    path: legacy/**
    reason: accepted
    until: 2026-06-30
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Suppressions) != 2 {
		t.Fatalf("%d suppressions", len(f.Suppressions))
	}
	s := f.Suppressions[1]
	if s.Line != 4 || s.Column != 5 || s.Until != "2026-06-30" || s.Object.Name != "web-*" || s.Path != "legacy/**" {
		t.Errorf("entry %+v", s)
	}
	if f.Suppressions[0].Line != 2 {
		t.Errorf("first entry at line %d", f.Suppressions[0].Line)
	}
}

func TestBadSuppressionsNameTheLine(t *testing.T) {
	_, err := ParseFile(".plumb.yaml", []byte(`suppressions:
  - rule: check/156F64
  - reason: everything
  - rule: "check/["
    reason: r
  - rule: a
    reason: r
    until: next week
  - field: "spec..x"
    reason: r
  - object: {}
    reason: r
  - rule: a
    reasonn: typo
`))
	if err == nil {
		t.Fatal("accepted")
	}
	got := err.Error()
	for _, want := range []string{
		`.plumb.yaml:14:5: unknown key "reasonn" in suppressions`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("error lacks %q:\n%s", want, got)
		}
	}
	// Unknown keys are reported first; without them the entries are checked.
	_, err = ParseFile(".plumb.yaml", []byte(`suppressions:
  - rule: check/156F64
  - reason: everything
  - rule: "check/["
    reason: r
  - rule: a
    reason: r
    until: next week
  - field: "spec..x"
    reason: r
  - object: {}
    reason: r
`))
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{
		`.plumb.yaml:2:5: suppressions[0]: reason is required: say why the findings are accepted`,
		`.plumb.yaml:3:5: suppressions[1]: give at least one of fingerprint, rule, path, field or object`,
		`.plumb.yaml:4:5: suppressions[2]: rule "check/[": syntax error in pattern`,
		`.plumb.yaml:6:5: suppressions[3]: until "next week": want a date as YYYY-MM-DD`,
		`.plumb.yaml:9:5: suppressions[4]: field "spec..x"`,
		`.plumb.yaml:11:5: suppressions[5]: give at least one of fingerprint, rule, path, field or object`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("errors:\n%s", err)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("error %d: %q, want prefix %q", i, lines[i], want[i])
		}
	}
}

func TestPRModeFlagsAndFile(t *testing.T) {
	file, err := ParseFile("c.yaml", []byte("base_ref: origin/main\ngate: all\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--shard", "2/3"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Resolve(file, fl, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseRef != "origin/main" || cfg.Gate != GateAll || cfg.Shard != (shard.Spec{Index: 2, Count: 3}) {
		t.Errorf("cfg %+v", cfg)
	}
	if err := fs.Parse([]string{"--base-ref", "abc123", "--gate", "new"}); err != nil {
		t.Fatal(err)
	}
	if cfg, err = Resolve(file, fl, "/repo"); err != nil || cfg.BaseRef != "abc123" || cfg.Gate != GateNew {
		t.Errorf("flags do not win: %+v %v", cfg, err)
	}
	// Defaults: no PR mode, gate new, no sharding.
	cfg, err = Resolve(nil, BindCheckFlags(pflag.NewFlagSet("x", pflag.ContinueOnError)), "/repo")
	if err != nil || cfg.BaseRef != "" || cfg.Gate != GateNew || cfg.Shard.Enabled() {
		t.Errorf("defaults %+v %v", cfg, err)
	}
}

func TestBadPRModeValues(t *testing.T) {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--gate", "some", "--shard", "5/4"}); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(nil, fl, "/repo")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`--gate: gate "some": want new or all`, `--shard: shard "5/4"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !slices.Contains(strings.Split(err.Error(), "\n"), `--gate: gate "some": want new or all`) {
		t.Errorf("errors: %v", err)
	}
}
