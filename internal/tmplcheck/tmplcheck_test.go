package tmplcheck

import (
	"errors"
	"io"
	"strings"
	"testing"
	"text/template"
)

// The check runs once per template body and once per range iteration,
// nested ranges and else branches included, and its error stops the
// execution at the loop's line.
func TestInstrumentCountsIterations(t *testing.T) {
	src := "{{ range .A }}{{ range $.B }}{{ end }}{{ end }}\n{{ if .C }}{{ range .A }}{{ end }}{{ else }}{{ range .B }}{{ end }}{{ end }}"
	calls := 0
	tm := template.Must(template.New("t").Funcs(template.FuncMap{"check": func() string { return "" }}).Parse(src))
	Instrument(tm.Tree, "check")
	Instrument(tm.Tree, "check") // a second time changes nothing
	tm.Funcs(template.FuncMap{"check": func() string { calls++; return "" }})
	data := map[string]any{"A": []int{1, 2, 3}, "B": []int{1, 2}, "C": false}
	if err := tm.Execute(io.Discard, data); err != nil {
		t.Fatal(err)
	}
	// 1 (body) + 3 (outer) + 3*2 (inner) + 2 (else branch's range)
	if calls != 12 {
		t.Errorf("%d checks, want 12", calls)
	}

	stop := errors.New("over budget")
	calls = 0
	tm.Funcs(template.FuncMap{"check": func() (string, error) {
		if calls++; calls > 3 {
			return "", stop
		}
		return "", nil
	}})
	err := tm.Execute(io.Discard, data)
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "t:1:") {
		t.Errorf("error %v, want the check's error at line 1", err)
	}
}
