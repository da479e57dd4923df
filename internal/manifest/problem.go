package manifest

import "fmt"

// Rule ids of the problems the loader and the object classifier report. The
// hygiene analyzer turns problems into findings and describes these rules.
const (
	RuleYAMLSyntax      = "manifest/yaml-syntax"
	RuleDuplicateKey    = "manifest/duplicate-key"
	RuleInvalidUTF8     = "manifest/invalid-utf8"
	RuleTooLarge        = "manifest/file-too-large"
	RuleTooDeep         = "manifest/too-deep"
	RuleAliasLimit      = "manifest/alias-limit"
	RuleUnreadable      = "manifest/unreadable"
	RuleOutsideRepo     = "manifest/outside-repository"
	RuleNotAnObject     = "manifest/not-an-object"
	RuleMissingAPI      = "manifest/missing-api-version"
	RuleMissingKind     = "manifest/missing-kind"
	RuleMissingName     = "manifest/missing-name"
	RuleDuplicateObject = "manifest/duplicate-object"
)

// Problem is something wrong with the input found while loading or
// classifying documents. Config problems make the run exit 2; the rest are
// ordinary findings.
type Problem struct {
	Rule     string
	Level    string // "error" | "warning" | "note"
	Location Location
	Related  []Location
	Message  string
	Object   ObjectID
	Path     Path
	// Key tells apart problems of one rule in one file (part of the
	// finding's fingerprint, so it must not contain line numbers).
	Key string
	// Input marks problems that mean the input could not be read as written,
	// as opposed to findings about valid input (information: both obey
	// --fail-on).
	Input bool
	// Config marks problems with plumb's own inputs (a path named on the
	// command line, a .plumb.yaml entry, a --kubevirt-templates directory)
	// rather than with the repository's content: they make the run exit 2.
	Config bool
}

// Error formats the problem as file:line:col: message.
func (p Problem) Error() string {
	return fmt.Sprintf("%s: %s", FormatLocation(p.Location), p.Message)
}

// FormatLocation prints file:line:col, omitting the parts that are unknown.
func FormatLocation(l Location) string {
	switch {
	case l.Line == 0:
		return l.File
	case l.Column == 0:
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
	}
}

// configError marks a problem with a path plumb was asked to read (named
// on the command line or in .plumb.yaml): plumb cannot do what it was
// asked, whatever the repository holds.
func configError(p Problem) Problem {
	p.Config = true
	return p
}

func inputError(rule string, loc Location, format string, args ...any) Problem {
	return Problem{Rule: rule, Level: "error", Location: loc, Message: fmt.Sprintf(format, args...), Input: true}
}
