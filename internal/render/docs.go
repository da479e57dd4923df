package render

import (
	"bytes"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// docCache parses each source file once per render (resource files shared
// by many overlays, patch files) and reuses what the loader already parsed.
type docCache struct {
	files  *fileCache
	limits manifest.Limits
	known  map[string][]*manifest.Document

	mu sync.Mutex
	m  map[string]*docEntry
}

type docEntry struct {
	once sync.Once
	docs []*srcDoc
}

func newDocCache(files *fileCache, known map[string][]*manifest.Document, limits manifest.Limits) *docCache {
	return &docCache{files: files, limits: limits, known: known, m: map[string]*docEntry{}}
}

// get returns the documents of a repository file (nil when unreadable:
// krusty reports that).
func (c *docCache) get(file string) []*srcDoc {
	return c.once(file, func() []*srcDoc {
		docs, ok := c.known[file]
		if !ok || docs == nil {
			data, err := c.files.read(file)
			if err != nil {
				return nil
			}
			docs, _ = manifest.Parse(file, data, c.limits)
		}
		out := make([]*srcDoc, len(docs))
		for i, d := range docs {
			out[i] = &srcDoc{doc: d}
		}
		return out
	})
}

// put records the documents of a file that is not in the repository (a
// chart rendered for a kustomization's helmCharts).
func (c *docCache) put(file string, docs []*srcDoc) {
	e := &docEntry{docs: docs}
	e.once.Do(func() {})
	c.mu.Lock()
	c.m[file] = e
	c.mu.Unlock()
}

func (c *docCache) once(key string, parse func() []*srcDoc) []*srcDoc {
	c.mu.Lock()
	e := c.m[key]
	if e == nil {
		e = &docEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.docs = parse() })
	return e.docs
}

// inline returns the documents of a YAML string held in a kustomization
// (an inline patch), positioned in the kustomization file: a literal block
// (|) maps line by line, a single-line scalar column by column; anything
// else (folded or multi-line quoted strings) points at the string itself.
func (c *docCache) inline(k *kustomization, p manifest.Path) []*srcDoc {
	return c.once(k.File+"#"+p.String(), func() []*srcDoc {
		_, n := k.node(p)
		if n == nil || n.Kind != yaml.ScalarNode {
			return nil
		}
		loc := k.at(p)
		docs, _ := manifest.Parse(k.File, []byte(n.Value), c.limits)
		line := n.Line + k.Doc.LineOffset
		var colOffset, lineOffset int
		var fallback *manifest.Location
		switch {
		case n.Style&yaml.LiteralStyle != 0:
			lineOffset = line // content starts on the line after the indicator
			colOffset = c.blockIndent(k.File, line)
		case !strings.Contains(n.Value, "\n") && !(n.Style&yaml.DoubleQuotedStyle != 0 && strings.Contains(n.Value, `\`)):
			lineOffset = line - 1
			colOffset = n.Column - 1
			if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
				colOffset++
			}
			if n.Style&yaml.SingleQuotedStyle != 0 && strings.Contains(n.Value, "'") {
				fallback = &loc
			}
		default:
			fallback = &loc
		}
		out := make([]*srcDoc, len(docs))
		for i, d := range docs {
			d.LineOffset += lineOffset
			out[i] = &srcDoc{doc: d, colOffset: colOffset, fallback: fallback}
		}
		return out
	})
}

// blockIndent returns the indentation of the first non-blank line after
// line (1-based) in a file: the indentation of a literal block's content.
func (c *docCache) blockIndent(file string, line int) int {
	data, err := c.files.read(file)
	if err != nil {
		return 0
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := line; i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		return len(l) - len(bytes.TrimLeft(l, " "))
	}
	return 0
}
