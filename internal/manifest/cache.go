package manifest

import (
	"bytes"
	"sync"
)

// ParseCache shares parsed files between loads of two revisions of one
// repository (a pull request's base and head): a file whose content is the
// same byte for byte is parsed once, and both loads get the same Documents.
// Most files of a pull request are unchanged, so the second load costs
// little more than reading. It is safe for concurrent use; when both loads
// reach the same file at once, one parses and the other waits for it.
//
// Sharing is sound because nothing modifies a Document or an object's
// Content after loading (the analyzer contract; inspection rules copy
// before they change an object).
type ParseCache struct {
	mu    sync.Mutex
	files map[string]*cachedFile
}

type cachedFile struct {
	data     []byte
	ready    chan struct{}
	docs     []*Document
	problems []Problem
}

// NewParseCache returns an empty cache.
func NewParseCache() *ParseCache { return &ParseCache{files: map[string]*cachedFile{}} }

// parse returns the cached result for name when data is what was parsed
// under that name before, and parses (and remembers) it otherwise.
func (c *ParseCache) parse(name string, data []byte, limits Limits) ([]*Document, []Problem) {
	c.mu.Lock()
	f, ok := c.files[name]
	if ok && bytes.Equal(f.data, data) {
		c.mu.Unlock()
		<-f.ready
		return f.docs, f.problems
	}
	if ok {
		// Another revision of the file: parse it apart and keep the first.
		c.mu.Unlock()
		return Parse(name, data, limits)
	}
	f = &cachedFile{data: data, ready: make(chan struct{})}
	c.files[name] = f
	c.mu.Unlock()
	f.docs, f.problems = Parse(name, data, limits)
	close(f.ready)
	return f.docs, f.problems
}
