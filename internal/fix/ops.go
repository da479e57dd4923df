package fix

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// sourceOp is one change at the source: in the rng-th document range of
// file (documents are cut at "---" lines; edits never add or remove one,
// so the ordinal holds across edits), at the node at path (a path in that
// document).
type sourceOp struct {
	file string
	rng  int
	path manifest.Path
	// rename: the key at path becomes to. Otherwise keys are the mapping
	// keys to create below path (those already there are walked into) and
	// value is what the last one holds; with no keys, the node at path
	// gets value.
	rename bool
	to     string
	keys   []string
	value  any
	// also are more keys to add below path in the same go (keys several
	// fixes add to one mapping), in order.
	also []insertion
}

// insertion is keys to add below a node and the value of the last.
type insertion struct {
	keys  []string
	value any
}

// errCannotBatch is a batch of insertions that cannot go in together.
var errCannotBatch = notEditable("the keys cannot be added in one go")

// batchInserts merges the operations that add keys below the same node
// into one, in order; the others stay as they are.
func batchInserts(ops []sourceOp) []sourceOp {
	var out []sourceOp
	at := map[string]int{}
	for _, op := range ops {
		if op.rename || len(op.keys) == 0 {
			out = append(out, op)
			continue
		}
		k := fmt.Sprintf("%s\x00%d\x00%s", op.file, op.rng, op.path)
		if i, ok := at[k]; ok {
			out[i].also = append(out[i].also, insertion{op.keys, op.value})
			continue
		}
		at[k] = len(out)
		out = append(out, op)
	}
	return out
}

// docRanges cuts a file's lines into document ranges, [start, end) line
// indexes, at lines that start a document ("---").
func docRanges(lines []string) [][2]int {
	var out [][2]int
	start := 0
	for i, l := range lines {
		if i > start && isDocumentStart(l) {
			out = append(out, [2]int{start, i})
			start = i
		}
	}
	return append(out, [2]int{start, len(lines)})
}

func isDocumentStart(l string) bool {
	rest, ok := strings.CutPrefix(l, "---")
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// rangeOf is the ordinal of the range holding file line (1-based), -1
// when none does. The ranges are in order and adjoin.
func rangeOf(rs [][2]int, line int) int {
	i, _ := slices.BinarySearchFunc(rs, line-1, func(r [2]int, l int) int {
		switch {
		case r[1] <= l:
			return -1
		case r[0] > l:
			return 1
		}
		return 0
	})
	if i < len(rs) && line-1 >= rs[i][0] && line-1 < rs[i][1] {
		return i
	}
	return -1
}

// applyKey identifies an apply: the same operation on the same document
// gives the same result (alike findings of several render targets share their
// operations; joint edits repeat their members').
type applyKey struct {
	text, op string
	verify   bool
}

type applied struct {
	text string
	err  error
}

// apply is applyOp on the text of op's document range, remembered.
func (r *resolver) apply(chunk string, op sourceOp, verify bool) (string, error) {
	k := applyKey{verify: verify, text: chunk, op: fmt.Sprintf("%s\x00%d\x00%s\x00%v\x00%s\x00%q\x00%#v\x00%#v", op.file, op.rng, op.path, op.rename, op.to, op.keys, op.value, op.also)}
	if a, ok := r.applied.get(k); ok {
		return a.text, a.err
	}
	out, err := applyOp(chunk, op, r.parseOne, verify)
	r.applied.put(k, applied{out, err})
	return out, err
}

// parseOne is parseOne, remembered: the same document is read again for
// every operation on it.
func (r *resolver) parseOne(file, text string) (*manifest.Document, error) {
	if d, ok := r.parsed.get(text); ok {
		return d.doc, d.err
	}
	doc, err := parseOne(file, text, r.limits)
	r.parsed.put(text, parsedDoc{doc, err})
	return doc, err
}

type parsedDoc struct {
	doc *manifest.Document
	err error
}

// applyOp makes op in chunkText, the text of op's document range (its
// lines joined by "\n"), and returns the range's new text. With verify the
// result is checked: the document must read back exactly as before with
// this one change, and nothing outside it may change; otherwise applyOp
// refuses (the edit would not be exact). An op that is already made
// returns the text unchanged. Parsed documents are read-only: parse may
// share them.
func applyOp(chunkText string, op sourceOp, parse func(file, text string) (*manifest.Document, error), verify bool) (string, error) {
	if strings.Contains(chunkText, "{{") {
		return "", notEditable("the document in %s holds template expressions: the lines are not the values", op.file)
	}
	doc, err := parse(op.file, chunkText)
	if err != nil {
		return "", err
	}
	e := &editor{lines: strings.Split(chunkText, "\n"), doc: doc, style: detectStyle(doc.Node)}
	if err := e.make(op); err != nil {
		return "", err
	}
	newChunk := strings.Join(e.lines, "\n")
	if newChunk == chunkText {
		return chunkText, nil
	}
	if verify {
		if err := check(op, doc, newChunk, parse); err != nil {
			return "", err
		}
	}
	return newChunk, nil
}

// check reads an edited document back: it must be the old one with op
// made, exactly.
func check(op sourceOp, doc *manifest.Document, newChunk string, parse func(file, text string) (*manifest.Document, error)) error {
	got, err := parse(op.file, newChunk)
	if err != nil {
		return notEditable("the edit would break the YAML: %v", err)
	}
	want, err := expected(doc.Value, op)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(got.Value, want) {
		return notEditable("the edit would not read back as exactly this change")
	}
	return nil
}

// parseOne parses the text of one document.
func parseOne(file, text string, limits manifest.Limits) (*manifest.Document, error) {
	docs, problems := manifest.Parse(file, []byte(text), limits)
	if len(problems) > 0 {
		return nil, notEditable("%s does not parse: %s", file, problems[0].Message)
	}
	if len(docs) != 1 || docs[0].Node == nil {
		return nil, notEditable("%s: not one document where one was expected", file)
	}
	return docs[0], nil
}
