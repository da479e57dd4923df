package helm

import (
	"sort"
	"strings"
)

// segment says that from start on, the output was written by node, which
// (for an action) read refs.
type segment struct {
	start int
	node  *nodeInfo
	refs  []ref
}

// fileTrace is a template file's output with its segments, sorted by start.
type fileTrace struct {
	file *tmplFile
	out  string
	segs []segment
}

// at returns the segment that wrote offset off and where it ends.
func (t *fileTrace) at(off int) (segment, int, bool) {
	i := sort.Search(len(t.segs), func(i int) bool { return t.segs[i].start > off }) - 1
	if i < 0 {
		return segment{}, 0, false
	}
	end := len(t.out)
	for j := i + 1; j < len(t.segs); j++ {
		if t.segs[j].start > t.segs[i].start {
			end = t.segs[j].start
			break
		}
	}
	return t.segs[i], end, true
}

// spanSeg is a segment with its end.
type spanSeg struct {
	seg segment
	end int
}

// within returns the segments that wrote any of [a, b).
func (t *fileTrace) within(a, b int) []spanSeg {
	i := sort.Search(len(t.segs), func(i int) bool { return t.segs[i].start > a }) - 1
	if i < 0 {
		i = 0
	}
	var out []spanSeg
	for ; i < len(t.segs) && t.segs[i].start < b; i++ {
		end := len(t.out)
		for j := i + 1; j < len(t.segs); j++ {
			if t.segs[j].start > t.segs[i].start {
				end = t.segs[j].start
				break
			}
		}
		if end > a {
			out = append(out, spanSeg{t.segs[i], end})
		}
	}
	return out
}

// traceFile flattens the trace of one rendered template file, removing
// "<no value>" as Helm does.
func (t *tracer) traceFile(r *rendered, ix identityIndex) *fileTrace {
	segs := t.flatten(r.frame, r.frame.buf.String(), newScope(ix))
	out := r.frame.buf.String()
	if strings.Contains(out, "<no value>") {
		out, segs = removeNoValue(out, segs)
	}
	return &fileTrace{file: r.file, out: out, segs: segs}
}

// maxPending bounds the includes kept for later actions (a helper's result
// assigned to a variable and printed further down).
const maxPending = 16

// flatten turns a frame's events and splices into segments over its output.
func (t *tracer) flatten(f *frame, out string, sc *scope) []segment {
	segs := make([]segment, 0, len(f.events))
	si := 0
	var pending []splice
	for i := range f.events {
		e := &f.events[i]
		info := t.node(e.id)
		if info == nil {
			continue
		}
		end := len(out)
		if i+1 < len(f.events) {
			end = f.events[i+1].off
		}
		var refs []ref
		switch info.kind {
		case kindRange, kindWith:
			sc.enter(e, info, e.id)
		case kindIter:
			sc.iterate(info, t.node(info.rng))
			continue
		case kindAction:
			refs = sc.resolvePipe(info.pipe, e, info)
			sc.assign(info, refs)
		}
		base := segment{start: e.off, node: info, refs: refs}
		segs = append(segs, base)
		var mine []splice
		for si < len(f.splices) && f.splices[si].event == i {
			mine = append(mine, f.splices[si])
			si++
		}
		if end <= e.off {
			pending = append(pending, mine...)
			if len(pending) > maxPending {
				pending = pending[len(pending)-maxPending:]
			}
			continue
		}
		if info.kind != kindAction {
			continue
		}
		chunk := out[e.off:end]
		var placed []segment
		candidates := mine
		if len(info.vars) > 0 {
			// A helper's result kept in a variable is printed by an
			// action that reads the variable.
			candidates = append(candidates, pending...)
		}
		for _, sp := range candidates {
			child := t.flatten(sp.child, sp.text, newScope(sc.ix))
			placed = append(placed, align(chunk, sp.text, child, base)...)
		}
		sort.SliceStable(placed, func(a, b int) bool { return placed[a].start < placed[b].start })
		for _, s := range placed {
			s.start += e.off
			segs = append(segs, s)
		}
	}
	return segs
}

// align places an include's segments where its text went in the caller's
// chunk: as it is, or indented (indent, nindent); otherwise (trunc, a
// checksum) nothing is placed and the caller's action keeps the chunk.
// Offsets are relative to the chunk; base resumes after each placed piece.
func align(chunk, text string, child []segment, base segment) []segment {
	if k := strings.Index(chunk, text); k >= 0 {
		out := make([]segment, 0, len(child)+1)
		for _, s := range child {
			s.start += k
			out = append(out, s)
		}
		if e := k + len(text); e < len(chunk) {
			b := base
			b.start = e
			out = append(out, b)
		}
		return out
	}
	tl := lineStarts(text)
	cl := lineStarts(chunk)
	var out []segment
	j := 0
	matched, lines := 0, 0
	for li, ls := range tl {
		le := len(text)
		if li+1 < len(tl) {
			le = tl[li+1] - 1
		}
		line := text[ls:le]
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		for ; j < len(cl); j++ {
			ce := len(chunk)
			if j+1 < len(cl) {
				ce = cl[j+1] - 1
			}
			c := chunk[cl[j]:ce]
			if strings.HasSuffix(c, line) && strings.Trim(c[:len(c)-len(line)], " ") == "" {
				shift := cl[j] + len(c) - len(line) - ls
				if s, ok := segmentAt(child, ls); ok {
					s.start = ls + shift
					out = append(out, s)
				}
				for _, s := range child {
					if s.start > ls && s.start < le {
						s.start += shift
						out = append(out, s)
					}
				}
				b := base
				b.start = ce
				out = append(out, b)
				matched++
				j++
				break
			}
		}
	}
	if lines == 0 || matched*2 < lines {
		return nil
	}
	return out
}

// segmentAt returns the segment in effect at off.
func segmentAt(segs []segment, off int) (segment, bool) {
	var found segment
	ok := false
	for _, s := range segs {
		if s.start > off {
			break
		}
		found, ok = s, true
	}
	return found, ok
}

// removeNoValue deletes "<no value>" from out and moves the segments with
// the text.
func removeNoValue(out string, segs []segment) (string, []segment) {
	const nv = "<no value>"
	var cuts []int
	for i := 0; ; {
		k := strings.Index(out[i:], nv)
		if k < 0 {
			break
		}
		cuts = append(cuts, i+k)
		i += k + len(nv)
	}
	shift := func(off int) int {
		n := 0
		for _, c := range cuts {
			switch {
			case off >= c+len(nv):
				n += len(nv)
			case off > c:
				return c - n
			}
		}
		return off - n
	}
	for i := range segs {
		segs[i].start = shift(segs[i].start)
	}
	return strings.ReplaceAll(out, nv, ""), segs
}
