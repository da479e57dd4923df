package config

import (
	"fmt"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// syntaxError words a configuration file that does not parse as the
// loader words a manifest that does not: at the line and column where it
// breaks (yaml.v3 names the line of the collection being parsed for some
// errors, one above the break, and none at all for control characters or
// invalid UTF-8).
func syntaxError(name string, data []byte, decodeErr error) error {
	if line, col, what := badCharacter(data); line > 0 {
		return fmt.Errorf("%s:%d:%d: %s: the configuration must be UTF-8 text without control characters", name, line, col, what)
	}
	_, problems := manifest.Parse(name, data, manifest.Limits{})
	for _, p := range problems {
		if p.Rule == manifest.RuleYAMLSyntax {
			return fmt.Errorf("%s: %s", manifest.FormatLocation(p.Location), p.Message)
		}
	}
	return fmt.Errorf("%s: %v", name, decodeErr)
}

// badCharacter finds the first byte that is not UTF-8, or a control
// character YAML refuses (all but tab, line feed and carriage return), and
// returns its 1-based line and column and what it is.
func badCharacter(data []byte) (line, col int, what string) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, col, fmt.Sprintf("invalid UTF-8 byte 0x%02x", data[i])
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f, r >= 0x80 && r < 0xa0 && r != 0x85:
			return line, col, fmt.Sprintf("control character U+%04X", r)
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return 0, 0, ""
}
