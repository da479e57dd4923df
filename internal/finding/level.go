package finding

import "fmt"

// Level is a finding's severity. Lower values are more severe, so sorting by
// Level puts errors first.
type Level int

const (
	Error Level = iota
	Warning
	Note
)

var levelNames = [...]string{Error: "error", Warning: "warning", Note: "note"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// ParseLevel accepts error, warning and note.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown level %q (want error, warning or note)", s)
}

// AtLeast reports whether l is at least as severe as threshold.
func (l Level) AtLeast(threshold Level) bool { return l <= threshold }

// MarshalText makes levels print as their names in JSON.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses a level name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
