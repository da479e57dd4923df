package checks

import (
	"strings"
	"testing"
)

// A compile error is reported where its character is written in the file,
// whatever the scalar's style: escapes and quotes are wider in the file
// than in the text, folded line breaks decode to spaces, and the lines of a
// block keep the block's indentation.
func TestCompileErrorsPointAtTheWrittenCharacter(t *testing.T) {
	const head = "id: X1\nname: n\ngroup: g\ndescription: d\nremediation: r\nfacts:\n  - name: f\n    gatherer: manifest@v1\n    argument: spec.replicas\nexpectations:\n  - name: e\n"
	for _, c := range []struct {
		name, body string
		want       string // file:line:col of the diagnostic
		at         string // what the file has there
	}{
		{"escaped line break in a double-quoted scalar", `    expect: "facts.f ==\n = 1"` + "\n", "X1.yaml:12:27", "= 1"},
		{"unicode escape before the error", `    expect: "facts.f == '\u00e9' = 1"` + "\n", "X1.yaml:12:34", "= 1"},
		{"doubled quote in a single-quoted scalar", "    expect: 'facts.f == ''a'' = 1'\n", "X1.yaml:12:31", "= 1"},
		{"plain scalar folded over two lines", "    expect: facts.f ==\n      = 1\n", "X1.yaml:13:7", "= 1"},
		{"double-quoted scalar folded over two lines", "    expect: \"facts.f ==\n      = 1\"\n", "X1.yaml:13:7", "= 1"},
		{"message expression continued in a literal block", "    expect: facts.f == 1\n    failure_message: |\n      got ${facts.f\n      = 1}\n", "X1.yaml:15:7", "= 1}"},
		{"message expression in a double-quoted scalar after an escape", `    expect: facts.f == 1` + "\n" + `    failure_message: "a\tb ${facts.f = 1}"` + "\n", "X1.yaml:13:38", "= 1}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.body
			ch := parseCheck("X1.yaml", []byte(src))
			ch.lint()
			var got []string
			for _, d := range ch.Diagnostics {
				got = append(got, d.String())
			}
			var found bool
			for _, d := range ch.Diagnostics {
				if d.Level == LevelError && strings.HasPrefix(d.String(), c.want+": ") {
					found = true
					line := strings.Split(src, "\n")[d.Line-1]
					if rest := string([]rune(line)[d.Column-1:]); !strings.HasPrefix(rest, c.at) {
						t.Errorf("the file has %q at %s, want %q", rest, c.want, c.at)
					}
				}
			}
			if !found {
				t.Errorf("no error at %s:\n%s\n%s", c.want, strings.Join(got, "\n"), src)
			}
		})
	}
}
