// Package doclinks checks that the relative links of the project's Markdown
// documentation resolve: the file (or directory) exists, and an #anchor names
// a heading of the target page, with the anchors GitHub generates.
package doclinks

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Problem is a link that does not resolve.
type Problem struct {
	File   string // the page holding the link, as given to Check
	Line   int
	Target string // the link as written
	Reason string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: link %q %s", p.File, p.Line, p.Target, p.Reason)
}

// Link is one inline Markdown link found outside code.
type Link struct {
	Line   int
	Target string
}

var (
	// inlineLink matches [text](target) and ![alt](target); the target
	// stops at whitespace (an optional "title" may follow) or ')'.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	heading    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// Check reads every page (paths relative to root) and returns the links that
// do not resolve, in page and line order.
func Check(root string, pages []string) ([]Problem, error) {
	anchors := map[string]map[string]bool{} // page path (clean, relative) -> anchors
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		a := Anchors(string(b))
		anchors[rel] = a
		return a, nil
	}
	var problems []Problem
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", page, err)
		}
		for _, l := range Links(string(b)) {
			if p, ok := resolve(root, page, l, anchorsOf); !ok {
				problems = append(problems, p)
			}
		}
	}
	return problems, nil
}

// resolve checks one link of page; it reports false with the problem when
// the link does not resolve.
func resolve(root, page string, l Link, anchorsOf func(string) (map[string]bool, error)) (Problem, bool) {
	bad := func(reason string) (Problem, bool) {
		return Problem{File: page, Line: l.Line, Target: l.Target, Reason: reason}, false
	}
	u, err := url.Parse(l.Target)
	if err != nil {
		return bad("does not parse: " + err.Error())
	}
	if u.Scheme != "" || u.Host != "" {
		return Problem{}, true // external: not checked offline
	}
	target := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), u.Path)))
	if u.Path == "" {
		target = filepath.ToSlash(filepath.Clean(page))
	}
	if strings.HasPrefix(target, "../") || target == ".." {
		return bad("leaves the repository")
	}
	info, err := os.Stat(filepath.Join(root, target))
	if err != nil {
		return bad("names a file that does not exist (" + target + ")")
	}
	if u.Fragment == "" {
		return Problem{}, true
	}
	if info.IsDir() || !strings.HasSuffix(target, ".md") {
		return bad("has an anchor but " + target + " is not a Markdown page")
	}
	a, err := anchorsOf(target)
	if err != nil {
		return bad(err.Error())
	}
	if !a[u.Fragment] {
		return bad("names no heading of " + target)
	}
	return Problem{}, true
}

// Links returns the inline links of a Markdown text, leaving out those in
// fenced code blocks and code spans.
func Links(text string) []Link {
	var links []Link
	forEachProseLine(text, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			links = append(links, Link{Line: n, Target: m[1]})
		}
	})
	return links
}

// Anchors returns the anchors GitHub gives the headings of a Markdown text:
// the slug of each heading's text, with -1, -2, ... for repeats. Headings in
// block quotes count, as on GitHub.
func Anchors(text string) map[string]bool {
	seen := map[string]int{}
	anchors := map[string]bool{}
	forEachProseLine(text, func(_ int, line string) {
		for strings.HasPrefix(line, ">") {
			line = strings.TrimPrefix(strings.TrimPrefix(line, ">"), " ")
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := Slug(m[2])
		a := slug
		if n := seen[slug]; n > 0 {
			a = fmt.Sprintf("%s-%d", slug, n)
		}
		seen[slug]++
		anchors[a] = true
	})
	return anchors
}

// Slug is GitHub's anchor for a heading: the text as rendered (no code
// marks, link targets or HTML), lower-cased, without punctuation other than
// '-' and '_', spaces turned into '-'.
func Slug(headingText string) string {
	t := inlineLink.ReplaceAllStringFunc(headingText, func(s string) string {
		return s[strings.Index(s, "[")+1 : strings.Index(s, "]")]
	})
	t = htmlTag.ReplaceAllString(t, "")
	t = strings.NewReplacer("`", "", "*", "").Replace(t)
	var b strings.Builder
	for _, r := range strings.ToLower(t) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// forEachProseLine calls fn with every line (1-based number) outside fenced
// code blocks.
func forEachProseLine(text string, fn func(n int, line string)) {
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(strings.TrimLeft(line, "> "), " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		fn(i+1, line)
	}
}
