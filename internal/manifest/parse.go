package manifest

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Parse reads the documents of one file's content. name is the display path
// used in locations. A document that cannot be parsed is reported and the
// file's other documents are still returned.
func Parse(name string, data []byte, limits Limits) ([]*Document, []Problem) {
	return parse(name, data, limits, false)
}

// ParseYAML reads any YAML file (a configuration file a ConfigMap holds),
// not a manifest: a mapping used as a key, which Kubernetes refuses, is
// read with the key printed as text.
func ParseYAML(name string, data []byte, limits Limits) ([]*Document, []Problem) {
	return parse(name, data, limits, true)
}

func parse(name string, data []byte, limits Limits, anyKeys bool) ([]*Document, []Problem) {
	limits = limits.orDefault()
	if int64(len(data)) > limits.MaxFileBytes {
		return nil, []Problem{tooLarge(name, int64(len(data)), limits)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// Fast path: a valid file is decoded as one stream. Only when that fails
	// is it cut into documents, so that one broken document does not hide
	// the others and each problem gets its exact position.
	if utf8.Valid(data) {
		docs, problems, ok := parseChunk(name, chunk{data: data}, 0, limits, false, anyKeys)
		if ok {
			return docs, problems
		}
	}
	var docs []*Document
	var problems []Problem
	for _, c := range splitDocuments(data) {
		if off := invalidUTF8Offset(c.data); off >= 0 {
			line, col := lineCol(c.data, off)
			problems = append(problems, inputError(RuleInvalidUTF8,
				Location{File: name, Line: c.line + line + 1, Column: col},
				"invalid UTF-8 byte 0x%02x: manifests must be UTF-8 text", c.data[off]))
			continue
		}
		d, p, _ := parseChunk(name, c, len(docs), limits, true, anyKeys)
		docs = append(docs, d...)
		problems = append(problems, p...)
	}
	return docs, problems
}

func tooLarge(name string, size int64, limits Limits) Problem {
	return inputError(RuleTooLarge, Location{File: name, Line: 1, Column: 1},
		"file is %d bytes, over the %d-byte limit (raise it with --max-file-size)", size, limits.MaxFileBytes)
}

// chunk is a run of lines between document separators; line is the number of
// lines before it in the file.
type chunk struct {
	line int
	data []byte
}

// splitDocuments cuts a stream at lines that start a new document ("---",
// optionally followed by content). Parsing documents separately means one
// broken document does not hide the others, and keeps line offsets exact.
func splitDocuments(data []byte) []chunk {
	var out []chunk
	start, startLine, line := 0, 0, 0
	for i := 0; i < len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data)
		if end >= 0 {
			next = i + end + 1
		}
		if i > start && isDocumentStart(data[i:next]) {
			out = append(out, chunk{line: startLine, data: data[start:i]})
			start, startLine = i, line
		}
		line += 1 + extraBreaks(data[i:next])
		i = next
	}
	return append(out, chunk{line: startLine, data: data[start:]})
}

// extraBreaks counts the line breaks other than "\n" in data: yaml.v3
// also breaks lines at a lone "\r" and at NEL, LS and PS, and its positions
// count them.
func extraBreaks(line []byte) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\r' && (i+1 == len(line) || line[i+1] != '\n'):
			n++
		case line[i] == 0xC2 && i+1 < len(line) && line[i+1] == 0x85:
			n++
		case line[i] == 0xE2 && i+2 < len(line) && line[i+1] == 0x80 && (line[i+2] == 0xA8 || line[i+2] == 0xA9):
			n++
		}
	}
	return n
}

// CountLines counts lines the way yaml.v3 does.
func CountLines(data []byte) int {
	return bytes.Count(data, []byte("\n")) + extraBreaks(data) + 1
}

func isDocumentStart(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

func invalidUTF8Offset(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// lineCol converts a byte offset into 0-based line and 1-based column.
func lineCol(b []byte, off int) (int, int) {
	line := CountLines(b[:off]) - 1
	col := off - (bytes.LastIndexByte(b[:off], '\n') + 1)
	return line, utf8.RuneCount(b[off-col:off]) + 1
}

// parseChunk decodes the documents of one chunk; ok is false when the YAML
// could not be parsed (the problems then include the syntax error). With
// exact, a syntax error is located at the line where the document breaks
// (syntax.go), which costs extra parses; the fast path over a whole file
// discards its syntax problem and re-parses document by document.
func parseChunk(name string, c chunk, index int, limits Limits, exact, anyKeys bool) (docs []*Document, problems []Problem, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(c.data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, problems, true
		}
		if err != nil {
			return docs, append(problems, syntaxProblem(name, c, err, exact)), false
		}
		if isEmptyDocument(&n) {
			continue // only comments, "---" alone, or an explicit null
		}
		doc := &Document{File: name, Index: index + len(docs), Node: n.Content[0], LineOffset: c.line}
		vd := valueDecoder{doc: doc, limits: limits, anyKeys: anyKeys}
		v, err := vd.decode(doc.Node)
		problems = append(problems, vd.problems...)
		var lim *errLimit
		if errors.As(err, &lim) {
			problems = append(problems, inputError(lim.rule, lim.loc, "%s", lim.msg))
			continue
		}
		doc.Value = v
		docs = append(docs, doc)
	}
}

func isEmptyDocument(n *yaml.Node) bool {
	if len(n.Content) == 0 {
		return true
	}
	c := n.Content[0]
	return c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null"
}
