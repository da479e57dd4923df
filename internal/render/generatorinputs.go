package render

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// krusty's errors about a generator's inputs quote them: an env file line
// with one invalid byte is printed whole (DB_PASSWORD=..., and again as a
// list of bytes), a malformed literal (password Hunter2) is echoed. plumb
// checks a generator's literals and env files as kustomize reads them
// before krusty runs, and reports each mistake at the line to change (the
// env file's own line, the literal's entry) without quoting the content:
// it may be a Secret's. What krusty still reports about a closure with
// generators has their values removed (scrubGeneratorValues).

// checkLiterals checks the literals of a generator entry: KEY=VALUE each.
func (g *graph) checkLiterals(n *node, field string, gi int, literals []string) {
	for i, lit := range literals {
		if strings.Index(lit, "=") > 0 {
			continue
		}
		p := manifest.Path{manifest.Key(field), manifest.Index(gi), manifest.Key("literals"), manifest.Index(i)}
		n.problems = append(n.problems, *kustProblem(n.k.at(p),
			"%s: not KEY=VALUE: kustomize needs a key, then '=', then the value (the literal is not quoted here: it may hold a secret)", p))
	}
}

// checkEnvFile checks an env file as kustomize reads it: per line, blank,
// a comment, or KEY=VALUE (or KEY alone) with KEY a valid variable name,
// in UTF-8. Each bad line is reported at its line of the env file.
func (g *graph) checkEnvFile(n *node, file string, entry manifest.Path) {
	data, err := g.kc.files.read(file)
	if err != nil {
		return // reported at the entry
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		at := manifest.Location{File: file, Line: line, Column: 1}
		if !utf8.Valid(text) {
			at.Column = invalidUTF8Column(text)
			n.problems = append(n.problems, *kustProblem(at,
				"line %d is not valid UTF-8, which kustomize cannot read (%s of %s reads this env file; the line is not quoted here: it may hold a secret)",
				line, entry, n.k.File))
			continue
		}
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		text = bytes.TrimLeftFunc(text, unicode.IsSpace)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		key, _, _ := strings.Cut(string(text), "=")
		if !envVarNameRE.MatchString(key) {
			n.problems = append(n.problems, *kustProblem(at,
				"line %d is not KEY=VALUE with a valid variable name before '=' (letters, digits, '_', '-' and '.', not starting with a digit), "+
					"which kustomize refuses (%s of %s reads this env file; the line is not quoted here: it may hold a secret)",
				line, entry, n.k.File))
		}
	}
}

// envVarNameRE is what kustomize accepts as a variable name (Kubernetes'
// IsEnvVarName).
var envVarNameRE = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)

// invalidUTF8Column is the 1-based column of the first invalid byte.
func invalidUTF8Column(b []byte) int {
	col := 1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return col
		}
		i += size
		col++
	}
	return col
}

// generatorValues lists what a closure's secret generators hold: literal
// values and keys, the lines of their env files and the content of their
// files, so that no krusty message about them quotes one.
func (g *graph) generatorValues(c *closure) []string {
	var out []string
	for _, n := range c.nodes {
		for _, gen := range n.k.K.SecretGenerator {
			for _, lit := range gen.LiteralSources {
				out = append(out, lit)
				if k, v, ok := strings.Cut(lit, "="); ok {
					out = append(out, k, v)
				}
			}
			srcs := append(append([]string(nil), gen.EnvSources...), gen.FileSources...)
			for _, src := range srcs {
				if _, p, ok := strings.Cut(src, "="); ok {
					src = p
				}
				full, err := resolve(n.k.Dir, src)
				if err != nil {
					continue
				}
				data, err := g.kc.files.read(full)
				if err != nil {
					continue
				}
				out = append(out, string(data))
				for _, l := range strings.Split(string(data), "\n") {
					out = append(out, l)
					if _, v, ok := strings.Cut(l, "="); ok {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

// byteListRE matches a byte slice printed with %v ([68 66 95 ...]).
var byteListRE = regexp.MustCompile(`\[\d{1,3}(?: \d{1,3}){3,}\]`)

// scrubGeneratorValues removes a closure's secret generators' values from
// a krusty message.
func (g *graph) scrubGeneratorValues(c *closure, msg string) string {
	values := g.generatorValues(c)
	if len(values) == 0 {
		return msg
	}
	msg = byteListRE.ReplaceAllString(msg, "[...]")
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, v := range values {
		if v = strings.TrimSpace(v); len(v) >= 3 {
			msg = strings.ReplaceAll(msg, v, "***")
		}
	}
	return msg
}
