package main

import (
	"strings"
	"testing"
)

// `plumb completion SHELL` prints a completion script for each shell cobra
// supports; each names plumb and its commands' completion entry point.
func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "# bash completion V2 for plumb",
		"zsh":        "#compdef plumb",
		"fish":       "# fish completion for plumb",
		"powershell": "Register-ArgumentCompleter -CommandName 'plumb'",
	} {
		code, out, errOut := plumb(t, "completion", shell)
		if code != 0 || !strings.Contains(out, marker) || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, stderr %q, script starts %q", shell, code, errOut, firstLine(out))
		}
	}
	if code, _, _ := plumb(t, "completion", "tcsh"); code != 2 {
		t.Errorf("an unsupported shell: exit %d, want 2", code)
	}
	// What the scripts ask: the commands, and a flag's values.
	_, out, _ := plumb(t, "__complete", "ch")
	if !strings.Contains(out, "check") || !strings.Contains(out, "checks") {
		t.Errorf("completing `plumb ch`:\n%s", out)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
