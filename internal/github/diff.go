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
// files API returns it (hunks only, no ---/+++ header).
func ParsePatch(patch string) ([]Hunk, error) {
	var hunks []Hunk
	var cur *Hunk
	newLine := 0
	for i, line := range strings.Split(patch, "\n") {
		if strings.HasPrefix(line, "@@") {
			start, count, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("patch line %d: %w", i+1, err)
			}
			hunks = append(hunks, Hunk{NewStart: start, NewLines: count, right: map[int]bool{}, added: map[int]bool{}})
			cur = &hunks[len(hunks)-1]
			newLine = start
			continue
		}
		if cur == nil {
			if line == "" || strings.HasPrefix(line, "diff ") || strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "index ") {
				continue // a full git diff header; tolerate it
			}
			return nil, fmt.Errorf("patch line %d: content before the first @@ hunk header", i+1)
		}
		if line == "" {
			// A trailing newline at the end of the patch text.
			continue
		}
		switch line[0] {
		case '+':
			cur.right[newLine] = true
			cur.added[newLine] = true
			newLine++
		case ' ':
			cur.right[newLine] = true
			newLine++
		case '-', '\\': // removed line; "\ No newline at end of file"
		default:
			return nil, fmt.Errorf("patch line %d: unexpected line %q", i+1, truncate(line, 40))
		}
	}
	return hunks, nil
}

// parseHunkHeader reads "@@ -a,b +c,d @@ ..." and returns c and d.
func parseHunkHeader(line string) (int, int, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[0] != "@@" || !strings.HasPrefix(fields[2], "+") {
		return 0, 0, fmt.Errorf("malformed hunk header %q", truncate(line, 60))
	}
	spec := strings.TrimPrefix(fields[2], "+")
	startText, countText, hasCount := strings.Cut(spec, ",")
	start, err := strconv.Atoi(startText)
	if err != nil {
		return 0, 0, fmt.Errorf("malformed hunk header %q", truncate(line, 60))
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(countText); err != nil {
			return 0, 0, fmt.Errorf("malformed hunk header %q", truncate(line, 60))
		}
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
