package github

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// Diff is what a pull request changed, as far as review comments care: for
// each file, the hunks of its patch and the new-side (RIGHT) lines each hunk
// shows. GitHub accepts a review comment only on such a line, and a
// multi-line comment only when both ends are in the same hunk; one anchor
// outside makes it reject the whole review.
type Diff struct {
	files map[string]*FileDiff
	// stale are the files DropStale dropped the hunks of.
	stale map[string]bool
}

// FileDiff is one changed file.
type FileDiff struct {
	Path   string
	Status string // added, modified, renamed, removed, ...
	Hunks  []Hunk
	// SHA is the file's blob id at the pull request's head, "" when
	// unknown.
	SHA string
}

// Hunk is one @@ block of a patch.
type Hunk struct {
	// NewStart and NewLines are the +start,lines of the header.
	NewStart, NewLines int
	// right holds the new-side line numbers shown in the hunk (added and
	// context lines).
	right map[int]bool
	// added holds the lines the pull request added or changed.
	added map[int]bool
	// oldEnd is the old-side line after the hunk, to check the next hunk
	// follows it.
	oldEnd int
}

// NewDiff builds a Diff from files.
func NewDiff(files []*FileDiff) *Diff {
	d := &Diff{files: map[string]*FileDiff{}}
	for _, f := range files {
		d.files[f.Path] = f
	}
	return d
}

// ParsePatch reads the hunks of one file's patch as GitHub's pull request
// files API returns it (hunks only, no ---/+++ header). The patch comes
// from the pull request, so it is checked against its own headers: a hunk
// must show exactly the old and new line counts its header declares, and
// hunks must follow each other down the file. Otherwise line numbers
// cannot be trusted (a comment would land on a line GitHub does not show,
// and GitHub rejects the whole review), so the patch is an error.
func ParsePatch(patch string) ([]Hunk, error) {
	var hunks []Hunk
	var cur *Hunk
	var hunkLine int         // the patch line of cur's header
	var oldLeft, newLeft int // lines cur still has to show on each side
	newLine := 0
	// finish checks that cur showed every line its header declares.
	finish := func() error {
		if cur != nil && (oldLeft > 0 || newLeft > 0) {
			return fmt.Errorf("patch line %d: the hunk shows fewer lines than its header declares (%d old and %d new lines missing)", hunkLine, oldLeft, newLeft)
		}
		return nil
	}
	for i, line := range strings.Split(patch, "\n") {
		if strings.HasPrefix(line, "@@") {
			if err := finish(); err != nil {
				return nil, err
			}
			h, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("patch line %d: %w", i+1, err)
			}
			if n := len(hunks); n > 0 {
				if prev := hunks[n-1]; h.newStart < prev.NewStart+prev.NewLines || h.oldStart < prev.oldEnd {
					return nil, fmt.Errorf("patch line %d: the hunk starts at line %d, before the end of the previous hunk (line %d): hunks must follow each other down the file", i+1, h.newStart, prev.NewStart+prev.NewLines)
				}
			}
			hunks = append(hunks, Hunk{NewStart: h.newStart, NewLines: h.newLines, oldEnd: h.oldStart + h.oldLines, right: map[int]bool{}, added: map[int]bool{}})
			cur = &hunks[len(hunks)-1]
			hunkLine, oldLeft, newLeft, newLine = i+1, h.oldLines, h.newLines, h.newStart
			continue
		}
		if cur == nil {
			if line == "" || strings.HasPrefix(line, "diff ") || strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "index ") {
				continue // a full git diff header; tolerate it
			}
			return nil, fmt.Errorf("patch line %d: content before the first @@ hunk header", i+1)
		}
		kind := byte(' ') // an empty line is an empty context line (GNU diff writes them so)
		if line != "" {
			kind = line[0]
		}
		switch {
		case line == "" && oldLeft == 0 && newLeft == 0:
			// The newline that ends the patch text, or a blank line
			// between hunks.
		case kind == '\\':
			// "\ No newline at end of file"
		case kind != '+' && kind != '-' && kind != ' ':
			return nil, fmt.Errorf("patch line %d: unexpected line %q", i+1, truncate(line, 40))
		case kind != '+' && oldLeft == 0 || kind != '-' && newLeft == 0:
			return nil, fmt.Errorf("patch line %d: the hunk at line %d shows more lines than its header declares", i+1, hunkLine)
		case kind == '+':
			cur.right[newLine] = true
			cur.added[newLine] = true
			newLine++
			newLeft--
		case kind == ' ':
			cur.right[newLine] = true
			newLine++
			oldLeft--
			newLeft--
		default: // '-': a removed line
			oldLeft--
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return hunks, nil
}

// maxPatchLine bounds the line numbers of a hunk header, so that a start
// plus a count cannot overflow.
const maxPatchLine = 1 << 30

// hunkHeader is a parsed "@@ -a,b +c,d @@" line.
type hunkHeader struct {
	oldStart, oldLines, newStart, newLines int
}

// parseHunkHeader reads "@@ -a,b +c,d @@ ...".
func parseHunkHeader(line string) (hunkHeader, error) {
	malformed := fmt.Errorf("malformed hunk header %q (want \"@@ -start,count +start,count @@\")", truncate(line, 60))
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[0] != "@@" || fields[3] != "@@" {
		return hunkHeader{}, malformed
	}
	oldSpec, ok := strings.CutPrefix(fields[1], "-")
	if !ok {
		return hunkHeader{}, malformed
	}
	newSpec, ok := strings.CutPrefix(fields[2], "+")
	if !ok {
		return hunkHeader{}, malformed
	}
	var h hunkHeader
	var err error
	if h.oldStart, h.oldLines, err = parseRange(oldSpec); err != nil {
		return hunkHeader{}, fmt.Errorf("%w: %v", malformed, err)
	}
	if h.newStart, h.newLines, err = parseRange(newSpec); err != nil {
		return hunkHeader{}, fmt.Errorf("%w: %v", malformed, err)
	}
	return h, nil
}

// parseRange reads "start[,count]" (count 1 when absent). Lines count from
// 1; start is 0 only for an empty range (a file created or deleted).
func parseRange(spec string) (start, count int, err error) {
	startText, countText, hasCount := strings.Cut(spec, ",")
	count = 1
	if start, err = strconv.Atoi(startText); err != nil || start < 0 || start > maxPatchLine || startText[0] == '+' {
		return 0, 0, fmt.Errorf("the start %q is not a line number", startText)
	}
	if hasCount {
		if count, err = strconv.Atoi(countText); err != nil || count < 0 || count > maxPatchLine || countText[0] == '+' {
			return 0, 0, fmt.Errorf("the count %q is not a number of lines", countText)
		}
	}
	if start == 0 && count > 0 {
		return 0, 0, fmt.Errorf("a range of %d lines cannot start at line 0", count)
	}
	return start, count, nil
}

// File returns the diff of one file, nil when the pull request did not
// change it.
func (d *Diff) File(path string) *FileDiff {
	if d == nil {
		return nil
	}
	return d.files[path]
}

// Anchor is where a review comment goes: Line on the RIGHT side, and
// StartLine (0 for a one-line comment) in the same hunk.
type Anchor struct {
	Path            string
	StartLine, Line int
}

// Anchor finds where a finding spanning lines start..end of path can be
// commented: its first line must be shown in a hunk; the comment spans to
// end when end is in the same hunk.
func (d *Diff) Anchor(path string, start, end int) (Anchor, bool) {
	f := d.File(path)
	if f == nil || start <= 0 {
		return Anchor{}, false
	}
	for _, h := range f.Hunks {
		if !h.right[start] {
			continue
		}
		a := Anchor{Path: path, Line: start}
		if end > start && h.right[end] {
			a.StartLine, a.Line = start, end
		}
		return a, true
	}
	return Anchor{}, false
}

// Span is the anchor of lines start through end of path when one hunk
// shows all of them (a hunk shows consecutive lines of the new side).
func (d *Diff) Span(path string, start, end int) (Anchor, bool) {
	f := d.File(path)
	if f == nil || start <= 0 || end < start {
		return Anchor{}, false
	}
	for _, h := range f.Hunks {
		if h.right[start] && h.right[end] {
			a := Anchor{Path: path, Line: end}
			if end > start {
				a.StartLine = start
			}
			return a, true
		}
	}
	return Anchor{}, false
}

// Changed reports whether the pull request added or changed line of path.
func (d *Diff) Changed(path string, line int) bool {
	f := d.File(path)
	if f == nil {
		return false
	}
	for _, h := range f.Hunks {
		if h.added[line] {
			return true
		}
	}
	return false
}

// ChangedWithin reports whether the pull request added or changed a line
// of path from start through end (end 0 or before start: start alone).
func (d *Diff) ChangedWithin(path string, start, end int) bool {
	f := d.File(path)
	if f == nil {
		return false
	}
	end = max(end, start)
	for _, h := range f.Hunks {
		for line := range h.added {
			if line >= start && line <= end {
				return true
			}
		}
	}
	return false
}

// BlobID is git's object id of a file with this content (SHA-1), as
// GitHub's pull request files list it.
func BlobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// DropStale forgets the hunks of every changed file whose content in the
// checkout (read) is not the pull request's head version, and returns
// their paths. On pull_request events actions/checkout checks out the
// merge of the head into the base branch: where the base branch changed a
// file too, a finding's line there is the merge's, not the head's, and a
// comment anchored on it would sit on the wrong line. Files without a
// known head blob id are kept, and so are files absent from the checkout
// (read returns an fs.ErrNotExist error): nothing was found in them.
func (d *Diff) DropStale(read func(path string) ([]byte, error)) []string {
	if d == nil {
		return nil
	}
	var stale []string
	for path, f := range d.files {
		if f.SHA == "" || len(f.Hunks) == 0 {
			continue
		}
		content, err := read(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || BlobID(content) != f.SHA {
			f.Hunks = nil
			stale = append(stale, path)
			if d.stale == nil {
				d.stale = map[string]bool{}
			}
			d.stale[path] = true
		}
	}
	slices.Sort(stale)
	return stale
}

// Stale reports whether DropStale dropped path: what plumb commented there
// before is left alone, as this run cannot tell where its findings are.
func (d *Diff) Stale(path string) bool { return d != nil && d.stale[path] }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
