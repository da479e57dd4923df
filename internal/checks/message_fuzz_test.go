package checks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Styles a fuzzed message is written in.
const (
	styleQuoted uint8 = iota
	styleLiteral
	styleFolded
	numStyles
)

// messageCheck is a check whose failure message is the fuzzed text, as a
// double-quoted scalar, a literal block or a folded block.
func messageCheck(message string, style uint8) string {
	head := "id: msg\nname: msg\ngroup: test\ndescription: d\nremediation: r\nfacts:\n  - name: some_fact\n    gatherer: manifest@v1\n    argument: spec.replicas\nexpectations:\n  - name: e\n    expect: facts.some_fact == 10\n"
	if style == styleQuoted {
		quoted, _ := json.Marshal(message)
		return head + "    failure_message: " + string(quoted) + "\n"
	}
	var b strings.Builder
	indicator := "|-"
	if style == styleFolded {
		indicator = ">-"
	}
	b.WriteString(head + "    failure_message: " + indicator + "\n")
	for _, l := range strings.Split(message, "\n") {
		b.WriteString("      " + l + "\n")
	}
	return b.String()
}

// FuzzMessage feeds arbitrary failure messages with ${...} interpolations
// to the check loader and renders those that load. The properties: every
// diagnostic names the check file and a line of it, and a problem with
// the message a line of the message; a message splits into parts that
// print back to it exactly; text without ${ renders as written; and the
// same message renders the same twice, quickly.
func FuzzMessage(f *testing.F) {
	for _, seed := range []string{
		"failure checking ${facts.some_fact}",
		"the value is ${facts.some_fact.missing_key}",
		"${facts.some_fact} of ${values.missing} in ${env.provider}",
		"plain text, no interpolation",
		"$ {not} and $${facts.some_fact} and {braces}",
		"${",
		"${facts.some_fact",
		"${}",
		"${ '}' + string(facts.some_fact) }",
		`${"}" + "{"}`,
		`${'''}'''}`,
		`${"\"}"}`,
		"${ {'a': 1}['a'] }",
		"${[1, 2, 3].map(x, x * 2)}",
		// Issue 18: messages that build values far larger than their
		// inputs (refused before they are built).
		`${"x".repeat(10)}`,
		`${[1, 2, 3].map(x, "abcdefghij".replace("", "abcdefghij")).join("")}`,
		`${lists.range(100000000)}`,
		`${string(facts.some_fact).split("").map(x, string(facts.some_fact)).join("")}`,
		"${facts.some_fact / 0}",
		"${1.0 / 3.0} ${double(1)} ${-0.0} ${1e308 * 10.0}",
		"${b'\\xff'} ${\"\\xff\"} \xff",
		"line one\n${facts.some_fact +}\nline three",
		"${[1,2,3,4,5,6,7,8].map(a, [1,2,3,4,5,6,7,8].map(b, [1,2,3,4,5,6,7,8].map(c, [1,2,3,4,5,6,7,8].map(d, a+b+c+d))))}",
		"${'x'.repeat(1000)}",
		strings.Repeat("${facts.some_fact}", 100),
		strings.Repeat("${", 50),
	} {
		for style := range numStyles {
			f.Add(seed, style)
		}
	}
	facts := celMap(map[string]any{"some_fact": int64(7)})
	f.Fuzz(func(t *testing.T, message string, style uint8) {
		style %= numStyles
		block := style != styleQuoted
		if block && strings.ContainsAny(message, "\r\t") {
			return // a literal block cannot hold these as written
		}
		src := messageCheck(message, style)
		c := parseCheck("msg.yaml", []byte(src))
		if len(c.Diagnostics) > 0 && c.Diagnostics[0].Path == "" {
			return // the YAML itself does not load (the block broke it)
		}
		c.lint()
		fileLines := strings.Split(src, "\n")
		last := 13 // the message's last line
		if block {
			last += strings.Count(message, "\n") + 1
		}
		for _, d := range c.Diagnostics {
			if d.File != "msg.yaml" || d.Line < 1 || d.Line >= len(fileLines) || d.Message == "" {
				t.Fatalf("diagnostic outside the file (%d lines): %+v\n%s", len(fileLines)-1, d, src)
			}
			if n := utf8.RuneCountInString(fileLines[d.Line-1]); d.Column < 1 || d.Column > n+1 {
				t.Fatalf("diagnostic at column %d of a line of %d characters: %+v\n%s", d.Column, n, d, src)
			}
			if strings.HasSuffix(d.Path, "failure_message") && (d.Line < 13 || d.Line > last) {
				t.Fatalf("message diagnostic outside the message (lines 13-%d): %+v\n%s", last, d, src)
			}
		}
		m := c.Expectations[0].FailureMessage
		if m == nil {
			t.Fatalf("no failure message read from\n%s", src)
		}
		if m.syntaxErr == "" {
			if printed := printMessage(m); printed != m.Raw {
				t.Fatalf("%q splits into parts that print as %q", m.Raw, printed)
			}
		}
		act := &activation{facts: facts, values: celMap(nil), env: celMap(nil)}
		start := time.Now()
		first := messageFor(m, act)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%q took %v to render", m.Raw, d)
		}
		if second := messageFor(m, act); second != first {
			t.Fatalf("%q rendered as %q, then %q", m.Raw, first, second)
		}
		if !strings.Contains(m.Raw, "${") && first != m.Raw {
			t.Fatalf("%q has no interpolation but renders as %q", m.Raw, first)
		}
	})
}

// printMessage prints the parts of a message back as text.
func printMessage(m *Message) string {
	var b strings.Builder
	for _, p := range m.parts {
		if p.expr != nil {
			b.WriteString("${" + p.expr.Source + "}")
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}
