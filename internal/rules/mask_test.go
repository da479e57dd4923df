package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

// maskedRead resolves a template for a rule under a masking mode.
func maskedRead(t *testing.T, mode MaskMode, sensitive bool, node map[string]any, tmpl string) any {
	t.Helper()
	e := NewEngine(&Set{}, Options{Mask: mode})
	s := newTestSubject(e, node, ironicInventory(), ironicPluginData())
	r := &Rule{Sensitive: sensitive}
	x := &evalCtx{e: e, s: s, rule: r, mask: e.opts.Mask.masks(r)}
	v, err := compileValue(tmpl, formatStrict)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := x.eval(v)
	return got
}

// Ironic TestShallowMask: masked keys at any depth, in lists of mappings, in
// whole renderings; other keys clear. D10: the node is masked too, and so
// are a Secret's data and stringData values.
func TestMaskedReads(t *testing.T) {
	node := ironicNode()
	node["spec"] = map[string]any{
		"auth": map[string]any{"Password": "p1", "user": "admin", "tokens": []any{map[string]any{"token": "t1", "id": "x"}}},
	}
	cases := map[string]any{
		"{node.spec.auth.Password}":         Masked, // case-insensitive
		"{node.spec.auth.user}":             "admin",
		"{node.spec.auth.tokens[0][token]}": Masked,
		"{node.spec.auth.tokens[0][id]}":    "x",
		"{node.spec.auth.Password.deeper}":  "{node.spec.auth.Password.deeper}", // a masked string has no fields
		"{node.spec.auth}":                  map[string]any{"Password": Masked, "user": "admin", "tokens": []any{map[string]any{"token": Masked, "id": "x"}}},
		"auth {node.spec.auth.tokens}":      `auth [{"id":"x","token":"***"}]`,
		"{inventory[bmc_address]}":          "192.168.1.100",
		"{plugin_data}":                     map[string]any{"plugin": "data", "logs": "some logs", "password": Masked},
	}
	for tmpl, want := range cases {
		if got := maskedRead(t, MaskAlways, false, node, tmpl); !equal(got, want) {
			t.Errorf("%s = %#v, want %#v", tmpl, got, want)
		}
	}
	// The original data is never changed by masking.
	if node["spec"].(map[string]any)["auth"].(map[string]any)["Password"] != "p1" {
		t.Error("masking wrote to the object")
	}
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"},
		"data": map[string]any{"tls.crt": "Y2VydA=="}, "stringData": map[string]any{"user": "bob"}, "type": "Opaque"}
	for tmpl, want := range map[string]any{
		"{node.data[tls.crt]}":   Masked,
		"{node.stringData.user}": Masked,
		"{node.stringData}":      map[string]any{"user": Masked},
		"{node.type}":            "Opaque",
		"{node.metadata.name}":   "s",
	} {
		if got := maskedRead(t, MaskAlways, false, secret, tmpl); !equal(got, want) {
			t.Errorf("Secret %s = %#v, want %#v", tmpl, got, want)
		}
	}
	whole := maskedRead(t, MaskAlways, false, secret, "{node}").(map[string]any)
	if whole["stringData"].(map[string]any)["user"] != Masked || whole["data"].(map[string]any)["tls.crt"] != Masked {
		t.Errorf("whole Secret: %v", whole)
	}
	if got := maskedRead(t, MaskNever, false, secret, "{node.stringData.user}"); got != "bob" {
		t.Errorf("never: %v", got)
	}
	// Configured extra keys.
	e := NewEngine(&Set{}, Options{MaskKeys: []string{"sshKey"}})
	s := newTestSubject(e, map[string]any{"sshkey": "k"}, nil, nil)
	x := &evalCtx{e: e, s: s, rule: &Rule{}, mask: true}
	if v, _ := x.resolve(&ref{root: rootNode, path: []accessor{{key: "sshkey"}}}); v != Masked {
		t.Errorf("extra mask key: %v", v)
	}
}

// Secret values never appear in any output, whatever the mode: finding
// messages, --explain, the report section and the checks' environment.
func TestSecretValuesNeverLeak(t *testing.T) {
	set := loadRules(t, `
- uuid: leaky
  phase: preprocess
  conditions: [{op: eq, args: {values: ["{node.kind}", Secret]}}]
  actions:
    - {op: log, args: {msg: "password is {node.stringData.password}, key {node.data[api]}"}}
    - {op: set-plugin-data, args: {path: copy, value: "{node.stringData.password}"}}
    - {op: set-plugin-data, args: {path: nested.token, value: clear-value}}
`)
	tg := target(t, "app", `apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: hunter2-secret}
data: {api: c2VjcmV0LWFwaS1rZXk=}
`)
	for _, mode := range []MaskMode{MaskAlways, MaskNever, MaskSensitive} {
		run := runAll(t, set, Options{Mask: mode, Explain: true}, tg)
		var out strings.Builder
		out.WriteString(messages(run.Findings()))
		if err := run.WriteExplanation(&out); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(run.Section())
		out.Write(b)
		env, _ := json.Marshal(run.TargetEnv())
		out.Write(env)
		for _, secret := range []string{"hunter2-secret", "c2VjcmV0LWFwaS1rZXk=", "secret-api-key"} {
			if strings.Contains(out.String(), secret) {
				t.Errorf("%s: %q leaked:\n%s", mode, secret, out.String())
			}
		}
		if mode == MaskNever && !strings.Contains(out.String(), "password is <redacted>, key <redacted>") {
			t.Errorf("never: the message is not redacted:\n%s", out.String())
		}
		if mode == MaskAlways && !strings.Contains(out.String(), "password is ***, key ***") {
			t.Errorf("always: the rule did not read masked values:\n%s", out.String())
		}
		// The report masks the values of masked keys in plugin data (the
		// rule's own literal here).
		if !strings.Contains(string(b), `"nested":{"token":"***"}`) {
			t.Errorf("%s: plugin data in the report: %s", mode, b)
		}
	}
}

// Sensitive rules: nothing of their conditions or actions in listings,
// explanations or the report; their errors are terse (D11).
func TestSensitiveRules(t *testing.T) {
	set := loadRules(t, `
- uuid: quiet
  sensitive: true
  phase: preprocess
  conditions: [{op: eq, args: {values: ["{node.kind}", ConfigMap]}}]
  actions:
    - {op: set-attribute, args: {path: /data/pw, value: pa55w0rd-literal}}
    - {op: set-plugin-data, args: {path: bmc.user, value: pa55w0rd-literal}}
    - {op: log, args: {msg: "authored message"}}
- uuid: quiet-broken
  sensitive: true
  actions:
    - {op: set-attribute, args: {path: /metadata/name/x, value: pa55w0rd-literal}}
`)
	e := NewEngine(set, Options{Explain: true})
	info := e.Describe(set.Rule("quiet"))
	if info.Conditions != nil || info.Actions != nil || !info.Sensitive {
		t.Errorf("describe shows a sensitive rule: %+v", info)
	}
	long, err := e.FormatList(e.List("", ""), true)
	if err != nil || strings.Contains(long, "pa55w0rd") || !strings.Contains(long, "conditions: null") {
		t.Errorf("list --long:\n%s", long)
	}
	tg := target(t, "app", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
	run := runAll(t, set, Options{Explain: true}, tg)
	var out strings.Builder
	if err := run.WriteExplanation(&out); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(run.Section())
	out.Write(b)
	fs := run.Findings()
	out.WriteString(messages(fs))
	if strings.Contains(out.String(), "pa55w0rd") || strings.Contains(out.String(), "/metadata/name/x") {
		t.Errorf("sensitive details leaked:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "(sensitive rule: conditions and actions are not shown)") ||
		!strings.Contains(out.String(), `"uuid":"quiet","phase":"preprocess","sensitive":true,"actions":null`) {
		t.Errorf("explanation/section:\n%s", out.String())
	}
	// fail/log messages are deliberate output and shown as authored.
	if !strings.Contains(messages(fs), "authored message") {
		t.Errorf("findings:\n%s", messages(fs))
	}
	if !strings.Contains(messages(fs), "inspection rule quiet-broken could not be applied to ConfigMap c [app]: action error (details hidden: the rule is sensitive)") {
		t.Errorf("terse error:\n%s", messages(fs))
	}
	// The patch of a sensitive rule is listed without values.
	objs := entries(t, run.Section().Objects)
	if len(objs) != 1 || len(objs[0].Patch) != 1 || objs[0].Patch[0].Value != nil {
		t.Errorf("patch %+v", objs)
	}
	// Plugin data a sensitive rule wrote is listed without its value (the
	// checks still get it).
	if compactJSON(objs[0].PluginData) != `{"bmc":{"user":"***"}}` || run.TargetEnv()["app"]["bmc"].(map[string]any)["user"] != "pa55w0rd-literal" {
		t.Errorf("plugin data %v / env %v", objs[0].PluginData, run.TargetEnv())
	}
}

// A subject's secret paths are kept from one rule (and phase) to the next,
// until the content changes: a rule that writes a credential into a
// mapping the subject already owns (an in-place write) is seen masked by
// the next rule, and its value never reaches a finding or the report.
func TestSecretPathsFollowInPlaceWrites(t *testing.T) {
	const secret = "s3cret-pass-1"
	set := loadRules(t, `
- uuid: first-write
  phase: preprocess
  priority: 100
  conditions:
    - {op: "!is-empty", args: {value: "{node.metadata.name}"}}
  actions:
    - {op: set-attribute, args: {path: /data/note, value: plain}}
- uuid: in-place-write
  phase: preprocess
  priority: 90
  conditions:
    - {op: eq, args: {values: ["{node.data.note}", plain]}}
  actions:
    - {op: set-attribute, args: {path: /data/db_password, value: `+secret+`}}
- uuid: read-preprocess
  phase: preprocess
  priority: 80
  actions:
    - {op: log, args: {msg: "preprocess reads {node.data.db_password}", level: warning}}
- uuid: read-main
  phase: main
  actions:
    - {op: log, args: {msg: "main reads {node.data.db_password} and {node.data.note}", level: warning}}
`)
	tg := target(t, "app", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n")
	run := runAll(t, set, Options{}, tg)
	msgs := messages(run.Findings())
	for _, want := range []string{"preprocess reads ***", "main reads *** and plain"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("findings lack %q:\n%s", want, msgs)
		}
	}
	raw, err := json.Marshal(run.Section())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msgs+string(raw), secret) {
		t.Errorf("the value written in place leaked:\n%s\n%s", msgs, raw)
	}
	if !strings.Contains(string(raw), `"value":"\u003credacted\u003e"`) {
		t.Errorf("the report does not show the written value redacted:\n%s", raw)
	}
	if s := run.objOrder[0]; !s.secretPathsValid || len(s.secretPaths) == 0 || s.secretPaths[0].String() != "data.db_password" {
		t.Errorf("secret paths after the rules: %v (valid %v)", s.secretPaths, s.secretPathsValid)
	}
}

// An edit that fails half way has changed the content: what was computed
// from it is forgotten.
func TestFailedEditForgetsSecretPaths(t *testing.T) {
	e := NewEngine(&Set{}, Options{})
	s := newTestSubject(e, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "b"}}, nil, nil)
	s.scratch = &phaseScratch{}
	if len(s.contentSecretPaths()) != 0 || !s.secretPathsValid {
		t.Fatal("paths not computed")
	}
	x := &evalCtx{e: e, s: s, rule: &Rule{}}
	// /data/a/x: data.a is a string, so the edit fails after copying the
	// mappings on its way.
	err := (&actionCall{x: x}).attributeEdit(&edit{segs: []string{"data", "a", "x"}, create: true,
		fn: func(any, bool) (any, bool, error) { return "v", false, nil }}, "set")
	if err == nil {
		t.Fatal("the edit succeeded")
	}
	if s.secretPathsValid || s.maskedValid {
		t.Error("a failed edit kept the secret paths of the content before it")
	}
}

// The masked mappings a phase's rules read are kept for the next rules,
// but not past a write: a write in place to a mapping the subject already
// owns (same address, same size) is read afresh.
func TestMaskedTreesFollowInPlaceWrites(t *testing.T) {
	set := loadRules(t, `
- uuid: copy-auth
  phase: preprocess
  priority: 100
  actions:
    - {op: set-attribute, args: {path: /spec/auth/user, value: first}}
- uuid: read-then-write-in-place
  phase: preprocess
  priority: 90
  conditions:
    - {op: "!is-empty", args: {value: "{node.spec.auth}"}}
  actions:
    - {op: log, args: {msg: "before {node.spec.auth}", level: warning}}
    - {op: set-attribute, args: {path: /spec/auth/user, value: second}}
- uuid: read-again
  phase: preprocess
  priority: 80
  actions:
    - {op: log, args: {msg: "after {node.spec.auth}", level: warning}}
`)
	tg := target(t, "app", "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {auth: {token: t0-secret, user: admin}}\n")
	run := runAll(t, set, Options{}, tg)
	msgs := messages(run.Findings())
	for _, want := range []string{`before {"token":"***","user":"first"}`, `after {"token":"***","user":"second"}`} {
		if !strings.Contains(msgs, want) {
			t.Errorf("findings lack %q:\n%s", want, msgs)
		}
	}
	if strings.Contains(msgs, "t0-secret") {
		t.Errorf("the token leaked:\n%s", msgs)
	}
}

// The redactor remembers the texts it redacted: a text read again gives
// the same result, short texts cannot hold a secret, long ones are not
// remembered but still redacted, and past the bound nothing more is kept.
func TestRedactorMemo(t *testing.T) {
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "stringData": map[string]any{"a": "hunter22", "b": "s3cr3t-longer"}}
	r := newRedactor(newMasker(nil), []redactSource{{content: secret}}, nil, false, 2)
	if r.shortest != len("hunter22") {
		t.Fatalf("shortest secret %d", r.shortest)
	}
	long := strings.Repeat("x", maxRedactMemoLen) + "hunter22"
	for range 2 {
		for in, want := range map[string]string{
			"pw hunter22 and s3cr3t-longer": "pw <redacted> and <redacted>",
			"plain text":                    "plain text",
			"hunter2":                       "hunter2",
			long:                            strings.Repeat("x", maxRedactMemoLen) + "<redacted>",
		} {
			if got := r.text(in); got != want {
				t.Errorf("text(%.40q) = %.40q, want %.40q", in, got, want)
			}
		}
	}
	if n := r.seenSize.Load(); n != 2 {
		t.Errorf("%d texts remembered, want 2 (the long and the short one are not)", n)
	}
	r.seenSize.Store(maxRedactMemo)
	if got := r.text("new hunter22"); got != "new <redacted>" {
		t.Errorf("past the bound: %q", got)
	}
	if _, kept := r.seen.Load("new hunter22"); kept {
		t.Error("a text was remembered past the bound")
	}
}

// Masked keys are found by length, any case, however long.
func TestIsMaskedKey(t *testing.T) {
	long := strings.Repeat("k", maxIndexedKey+5)
	m := newMasker([]string{"sshKey", long})
	for k, want := range map[string]bool{
		"password": true, "PASSWORD": true, "passwords": false, "metadata": false, "SSHKEY": true,
		long: true, strings.ToUpper(long): true, long + "x": false, "": false, "apiKey": true, "apikey": true,
	} {
		if got := m.isMaskedKey(k); got != want {
			t.Errorf("isMaskedKey(%q) = %v", k, got)
		}
	}
}
