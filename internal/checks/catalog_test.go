package checks

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func evalCatalog(t *testing.T) *Catalog {
	t.Helper()
	cat := Load(Source{FS: os.DirFS("testdata/eval/checks"), Dir: ".", Display: "checks"})
	if errs := cat.Errors(); len(errs) > 0 {
		t.Fatalf("test catalog does not lint: %v", errs)
	}
	return cat
}

func ids(cs []*Check) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// Wanda's catalog_test (research §5.2), cases C1–C16 that apply.
func TestCatalogLoading(t *testing.T) {
	cat := evalCatalog(t)

	t.Run("C1 whole catalog, ordered by id", func(t *testing.T) {
		entries, _ := os.ReadDir("testdata/eval/checks")
		if len(cat.Checks) != len(entries) {
			t.Errorf("%d checks from %d files", len(cat.Checks), len(entries))
		}
		if got := ids(cat.Checks); !slices.IsSorted(got) {
			t.Errorf("not sorted: %v", got)
		}
	})

	t.Run("C2 malformed files are reported, the rest loads", func(t *testing.T) {
		fs := fstest.MapFS{
			"X1.yaml":              {Data: []byte(header + body)},
			"malformed_check.yaml": {Data: []byte(strings.Replace(header, `"X1"`, `"malformed_check"`, 1) + "metadata:\n  target_type: object\nexpectations:\n  - name: e\n    expect: true\n")},
			"malformed_file.yaml":  {Data: []byte("id: [unclosed\n")},
		}
		c := Load(Source{FS: fs, Dir: ".", Display: "cat"})
		if got := ids(c.Usable()); !slices.Equal(got, []string{"X1"}) {
			t.Errorf("usable = %v", got)
		}
		if len(c.Errors()) < 2 {
			t.Errorf("malformed files not reported: %v", c.Diagnostics)
		}
	})

	t.Run("C3 when filters by env", func(t *testing.T) {
		if !slices.Contains(ids(cat.Filter(map[string]any{"provider": "azure"})), "when_condition_check") {
			t.Error("provider=azure drops when_condition_check")
		}
		if slices.Contains(ids(cat.Filter(map[string]any{"provider": "aws"})), "when_condition_check") {
			t.Error("provider=aws keeps when_condition_check")
		}
	})

	t.Run("C4 metadata mismatch filters", func(t *testing.T) {
		if slices.Contains(ids(cat.Filter(map[string]any{"some": "wanda"})), "with_metadata") {
			t.Error("some=wanda keeps with_metadata (metadata some: kind)")
		}
		if !slices.Contains(ids(cat.Filter(map[string]any{"some": "kind"})), "with_metadata") {
			t.Error("some=kind drops with_metadata")
		}
	})

	t.Run("C5 metadata list matches an element", func(t *testing.T) {
		if !slices.Contains(ids(cat.Filter(map[string]any{"list": "this"})), "metadata_list") {
			t.Error("list=this does not match [this, and, that]")
		}
		if slices.Contains(ids(cat.Filter(map[string]any{"list": "other"})), "metadata_list") {
			t.Error("list=other matches [this, and, that]")
		}
	})

	t.Run("C6 unrelated env keys do not filter; empty env keeps all", func(t *testing.T) {
		all := ids(cat.Filter(nil))
		if len(all) != len(cat.Checks) {
			t.Errorf("empty env: %d of %d", len(all), len(cat.Checks))
		}
		got := ids(cat.Filter(map[string]any{"unrelated": "x"}))
		// when_condition_check's when reads env.provider, absent: an error,
		// so it is dropped (C16).
		want := slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == "when_condition_check" })
		if !slices.Equal(got, want) {
			t.Errorf("unrelated env: %v\nwant %v", got, want)
		}
	})

	t.Run("strict metadata types", func(t *testing.T) {
		c := Load(Source{FS: fstest.MapFS{"X1.yaml": {Data: []byte(header + strings.Replace(body, "target_type: object", "target_type: object\n  replicas: 42\n  enabled: true", 1))}}, Dir: ".", Display: "cat"})
		for env, keep := range map[string]bool{"42": false, "true": false} {
			key := "replicas"
			if env == "true" {
				key = "enabled"
			}
			if got := len(c.Filter(map[string]any{key: env})) == 1; got != keep {
				t.Errorf("env %s=%q (string) matched %v", key, env, got)
			}
		}
		if len(c.Filter(map[string]any{"replicas": 42})) != 1 || len(c.Filter(map[string]any{"replicas": 42.0})) != 1 {
			t.Error("42 does not match 42 (42.0 is a whole number: an integer, as Wanda's mapping makes it)")
		}
		if len(c.Filter(map[string]any{"replicas": 42.5})) != 0 {
			t.Error("42.5 matches 42")
		}
	})

	t.Run("C7 full load of a check", func(t *testing.T) {
		c := cat.Get("env_check")
		if c.Name != "env_check" || c.Group != "test" || c.Severity != SeverityCritical || c.TargetType != TargetObject {
			t.Errorf("check = %+v", c)
		}
		if c.Facts[0].Argument != "" || c.Facts[0].Gatherer != "manifest@v1" {
			t.Errorf("fact without argument: %+v", c.Facts[0])
		}
		v := c.Values[0]
		if v.Name != "expected_value" || v.Default != int64(5) || len(v.Conditions) != 2 || v.Conditions[1].Value != int64(15) || v.Conditions[1].When.Source != `env.some_env == "yay"` {
			t.Errorf("value = %+v", v)
		}
		if e := c.Expectations[0]; e.Type != Expect || e.FailureMessage != nil {
			t.Errorf("expectation = %+v", e)
		}
	})

	t.Run("C8 C9 expect_same and expect_enum with warning_message", func(t *testing.T) {
		if cat.Get("expect_same_check").Expectations[0].Type != ExpectSame {
			t.Error("expect_same not loaded")
		}
		e := cat.Get("enum_messages_both").Expectations[0]
		if e.Type != ExpectEnum || e.WarningMessage == nil || e.WarningMessage.Raw != "warning because ${facts.outcome}" {
			t.Errorf("expect_enum = %+v", e)
		}
	})

	t.Run("C10 severity warning", func(t *testing.T) {
		if cat.Get("expect_warning_check").Severity != SeverityWarning {
			t.Error("severity warning not loaded")
		}
	})

	t.Run("C11 unknown check", func(t *testing.T) {
		if cat.Get("nope") != nil {
			t.Error("unknown id found")
		}
	})

	t.Run("C14 C15 customization_disabled", func(t *testing.T) {
		fs := fstest.MapFS{"X1.yaml": {Data: []byte(header + "customization_disabled: true\n" + body + "values:\n  - {name: v, default: 1}\n")},
			"X2.yaml": {Data: []byte(strings.Replace(header, "X1", "X2", 1) + body + "values:\n  - {name: v, default: 1, customization_disabled: true}\n  - {name: w, default: 1}\n  - {name: l, default: [1]}\n")}}
		c := Load(Source{FS: fs, Dir: ".", Display: "cat"})
		if c.Get("X1").Customizable() {
			t.Error("X1 (customization_disabled) is customizable")
		}
		x2 := c.Get("X2")
		if !x2.Customizable() || x2.valueCustomizable(x2.Values[0]) || !x2.valueCustomizable(x2.Values[1]) || x2.valueCustomizable(x2.Values[2]) {
			t.Error("value-level customizability wrong")
		}
	})
}

// Wanda's catalog/evaluation_test: V1–V3.
func TestValueResolution(t *testing.T) {
	src := header + body + `values:
  - name: threshold
    default: 1
    conditions:
      - value: 2
        when: env.some_entry > 10
      - value: 3
        when: env.some_entry > 5
`
	c := Load(Source{FS: fstest.MapFS{"X1.yaml": {Data: []byte(src)}}, Dir: ".", Display: "cat"}).Get("X1")
	if len(c.Diagnostics) > 0 {
		t.Fatal(c.Diagnostics)
	}
	resolve := func(env map[string]any, custom map[string]any) ResolvedValue {
		return c.resolveValues(celMap(NormalizeEnv(env)), custom)[0]
	}
	for _, tc := range []struct {
		env    map[string]any
		custom map[string]any
		want   ResolvedValue
	}{
		{map[string]any{"some_entry": 11}, nil, ResolvedValue{"threshold", int64(2), false}},
		{map[string]any{"some_entry": 10}, nil, ResolvedValue{"threshold", int64(3), false}}, // first match wins, in order
		{map[string]any{"some_entry": 1}, nil, ResolvedValue{"threshold", int64(1), false}},
		{map[string]any{"some_entry": "x"}, nil, ResolvedValue{"threshold", int64(1), false}}, // errors are no match
		{nil, nil, ResolvedValue{"threshold", int64(1), false}},
		{map[string]any{"some_entry": 11}, map[string]any{"threshold": int64(9)}, ResolvedValue{"threshold", int64(9), true}},
	} {
		if got := resolve(tc.env, tc.custom); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("env %v custom %v: %+v, want %+v", tc.env, tc.custom, got, tc.want)
		}
	}
}

// Wanda's checks_customizations_test.
func TestCustomizationValidation(t *testing.T) {
	fs := fstest.MapFS{
		"X1.yaml": {Data: []byte(header + body + "values:\n  - {name: count, default: 3}\n  - {name: name, default: web}\n  - {name: flag, default: true}\n  - {name: ratio, default: 0.5}\n  - {name: list, default: [a]}\n  - {name: locked, default: 1, customization_disabled: true}\n")},
		"X2.yaml": {Data: []byte(strings.Replace(header, "X1", "X2", 1) + "customization_disabled: true\n" + body + "values:\n  - {name: v, default: 1}\n")},
		"X3.yaml": {Data: []byte(strings.Replace(header, "X1", "X3", 1) + body)},
	}
	cat := Load(Source{FS: fs, Dir: ".", Display: "cat"})
	valid, problems := ValidateCustomizations(cat, Customizations{
		"X1":   {"count": 5, "name": "api", "flag": false, "ratio": 0.75, "list": []any{"b"}, "locked": 2, "missing": 1},
		"X2":   {"v": 2},
		"X3":   {"v": 1},
		"NOPE": {"v": 1},
		"Y":    {},
	})
	if !reflect.DeepEqual(valid, Customizations{"X1": {"count": int64(5), "name": "api", "flag": false, "ratio": 0.75}}) {
		t.Errorf("valid = %v", valid)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Message)
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		`there is no check "NOPE" in the catalog`,
		`value list of check X1 is not customizable (its default is not a scalar)`,
		`value locked of check X1 is not customizable (customization_disabled: true)`,
		`check X1 has no value "missing" (values: count, name, flag, ratio, list, locked)`,
		`check X2 is not customizable (customization_disabled: true)`,
		`check X3 has no customizable value`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// Type mismatches: numeric, string and boolean.
	_, problems = ValidateCustomizations(cat, Customizations{"X1": {"count": 1.5, "name": 3, "flag": "yes"}})
	msgs = nil
	for _, p := range problems {
		msgs = append(msgs, p.Message)
	}
	want := []string{
		"value count of check X1 is an integer (default 3), so the custom value must be an integer too, not a float 1.5",
		"value flag of check X1 is a boolean (default true), so the custom value must be a boolean too, not a string yes",
		"value name of check X1 is a string (default web), so the custom value must be a string too, not an integer 3",
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("type problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}
