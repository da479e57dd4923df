package render

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// OpenShift's "expression" parameter generator (library-go
// pkg/template/generator): every "[ranges]{N}" in the from pattern becomes N
// characters drawn from the ranges; the rest of the pattern is kept.
// Classes: \w letters, digits and "_"; \d digits; \a letters; \A symbols.
//
// OpenShift draws from a random source; plumb seeds a ChaCha8 source from
// the template's and the parameter's names, so the same repository renders
// the same values on every run and CI results are reproducible.

const (
	genLower   = "abcdefghijklmnopqrstuvwxyz"
	genUpper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	genDigits  = "0123456789"
	genSymbols = "~!@#$%^&*()-_+={}[]\\|<,>.?/\"';:`"
)

var (
	generatorExp  = regexp.MustCompile(`\[([a-zA-Z0-9\-\\]+)\](\{(\w+)\})`)
	rangeExp      = regexp.MustCompile(`([\\]?[a-zA-Z0-9]\-?[a-zA-Z0-9]?)`)
	expressionExp = regexp.MustCompile(`\[(\\w|\\d|\\a|\\A)|([a-zA-Z0-9]\-[a-zA-Z0-9])+\]`)
)

// generateValue expands a from pattern with a source seeded by seed.
func generateValue(from, seed string) (string, error) {
	sum := sha256.Sum256([]byte(seed))
	rng := rand.New(rand.NewChaCha8(sum))
	matches := generatorExp.FindAllStringSubmatchIndex(from, -1)
	if len(matches) == 0 {
		return from, nil
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(from[last:m[0]])
		expr := from[m[0]:m[1]]
		alphabet, length, err := rangesAndLength(expr, from[m[2]:m[3]], from[m[6]:m[7]])
		if err != nil {
			return "", err
		}
		for i := 0; i < length; i++ {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		last = m[1]
	}
	b.WriteString(from[last:])
	return b.String(), nil
}

// rangesAndLength reads one "[ranges]{N}" expression.
func rangesAndLength(expr, ranges, count string) (string, int, error) {
	if !expressionExp.MatchString(expr[:strings.LastIndex(expr, "{")]) {
		return "", 0, fmt.Errorf("malformed expression syntax: %s", expr)
	}
	length, err := strconv.Atoi(count)
	if err != nil {
		return "", 0, fmt.Errorf("malformed length in %s: %v", expr, err)
	}
	if length <= 0 || length > 255 {
		return "", 0, fmt.Errorf("range must be within [1-255] characters (%d) in %s", length, expr)
	}
	var alphabet strings.Builder
	seen := map[byte]bool{}
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			if !seen[s[i]] {
				seen[s[i]] = true
				alphabet.WriteByte(s[i])
			}
		}
	}
	for _, r := range rangeExp.FindAllString(ranges, -1) {
		switch {
		case r == `\w`:
			add(genLower + genUpper + genDigits + "_")
		case r == `\d`:
			add(genDigits)
		case r == `\a`:
			add(genLower + genUpper)
		case r == `\A`:
			add(genSymbols)
		case strings.HasPrefix(r, `\`):
			return "", 0, fmt.Errorf("unknown class %s in %s", r, expr)
		default:
			from, to := r[0], r[len(r)-1]
			s, err := charRange(from, to)
			if err != nil {
				return "", 0, fmt.Errorf("%v in %s", err, expr)
			}
			add(s)
		}
	}
	if alphabet.Len() == 0 {
		return "", 0, fmt.Errorf("empty range in %s", expr)
	}
	return alphabet.String(), length, nil
}

// charRange returns the characters from..to (inclusive) within one class
// (lower case, upper case or digits).
func charRange(from, to byte) (string, error) {
	for _, class := range []string{genLower, genUpper, genDigits} {
		i, j := strings.IndexByte(class, from), strings.IndexByte(class, to)
		if i >= 0 && j >= 0 {
			if i > j {
				return "", fmt.Errorf("invalid range %c-%c", from, to)
			}
			return class[i : j+1], nil
		}
	}
	return "", fmt.Errorf("invalid range %c-%c", from, to)
}
