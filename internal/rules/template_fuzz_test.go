package rules

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// secretValues are the fixture's secrets (Ironic's bmc_password and plugin
// data password, a Secret's data and stringData): no interpolation may
// print them while masking is on.
var secretValues = []string{"secret", "c2VjcmV0"}

// offsetInMessage finds the "at offset N" of a template syntax error.
var offsetInMessage = regexp.MustCompile(`at offset (\d+)`)

// FuzzTemplate feeds arbitrary strings to the str.format template parser
// and interpolates what parses against the Ironic fixture, in and out of
// a loop (where a string result is formatted a second time), on a plain
// node and on a Secret. The properties: parse errors name an offset inside
// the string; a parsed template prints back to exactly its source; the
// same interpolation gives the same value twice; and, with masking on, no
// secret value of the fixture appears in a result unless the template
// itself spells it.
func FuzzTemplate(f *testing.F) {
	for _, seed := range []string{
		"{node.driver}",
		"{inventory[bmc_address]}",
		"{inventory[bmc_password]}",
		"{plugin_data[password]}",
		"{plugin_data}",
		"{inventory}",
		"ip={inventory[interfaces][0][mac_address]} disks={inventory[disks]}",
		"{item}",
		"{item[value]}",
		"{item[nested][password]}",
		// Issue 18: a value doubled (bounded per action and per run).
		"{plugin_data[a]}{plugin_data[a]}",
		"{node[data]}",
		"{node.data.token}",
		"{node[stringData]}",
		"{node.metadata.name}-{node.kind}",
		"{{literal}} and }}{{",
		"{inventory['bmc_address']}",
		`{inventory["cpu"][count]}`,
		"{inventory[interfaces][99999999999999999999]}",
		"{inventory[interfaces][-1]}",
		"o{1,2}",
		"{node.kind!r}",
		"{node:>10}",
		"{",
		"}",
		"{}",
		"{node[}",
		"{node.}",
		"{node[a]x}",
		strings.Repeat("{node.driver}", 200),
		strings.Repeat("{", 1000),
		"\xff{node.driver}\xfe",
	} {
		f.Add(seed)
	}
	e := NewEngine(&Set{}, Options{})
	item := map[string]any{
		"value":  "{inventory[bmc_password]}",
		"nested": map[string]any{"password": "secret"},
		"list":   []any{"a", int64(2)},
	}
	secretNode := map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds"},
		"data": map[string]any{"token": "c2VjcmV0"}, "stringData": map[string]any{"password": "secret"},
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, lit, err := parseTemplate(s)
		if err != nil {
			if m := offsetInMessage.FindStringSubmatch(err.Error()); m != nil {
				if off, _ := strconv.Atoi(m[1]); off > len(s) {
					t.Fatalf("%q: error names offset %d of a %d-byte string: %v", s, off, len(s), err)
				}
			}
			return
		}
		if tmpl == nil {
			if escapeBraces(lit) != s {
				t.Fatalf("%q: a template without fields reads as the literal %q, which does not print back to it", s, lit)
			}
		} else if printed := printTemplate(tmpl); printed != s {
			t.Fatalf("%q prints back as %q", s, printed)
		}
		v, err := compileValue(s, formatStrict)
		if err != nil {
			t.Fatalf("%q parses but does not compile: %v", s, err)
		}
		for _, node := range []map[string]any{ironicNode(), secretNode} {
			subj := newTestSubject(e, node, ironicInventory(), ironicPluginData())
			for _, inLoop := range []bool{false, true} {
				x := &evalCtx{e: e, s: subj, rule: &Rule{}, mask: true, item: item, hasItem: inLoop}
				first, ok1 := x.evalArg(v, inLoop)
				second, ok2 := x.evalArg(v, inLoop)
				if ok1 != ok2 || !reflect.DeepEqual(first, second) {
					t.Fatalf("%q interpolated twice: %#v (%v) then %#v (%v)", s, first, ok1, second, ok2)
				}
				out, _ := json.Marshal(first)
				for _, secret := range secretValues {
					if strings.Contains(string(out), secret) && !strings.Contains(s, secret) {
						t.Fatalf("%q (in loop: %v, node %v) leaks the secret %q: %s", s, inLoop, node["kind"], secret, out)
					}
				}
			}
		}
	})
}

// escapeBraces writes a literal as template text.
func escapeBraces(lit string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(lit)
}

// printTemplate prints a parsed template back as text.
func printTemplate(t *template) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref != nil {
			b.WriteString(p.ref.text)
		} else {
			b.WriteString(escapeBraces(p.lit))
		}
	}
	return b.String()
}
