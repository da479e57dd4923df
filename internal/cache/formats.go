package cache

import (
	"os"
	"regexp"
	"time"
)

// The formats plumb wrote before this one, each with its files' names and
// magic. Finish removes their files once nothing has used them for
// staleFormat, file by file and only those it recognises, then each
// directory left empty; a directory named like a format that plumb never
// wrote (v7), a link named like one, and a file of another kind inside
// one are never touched.
var oldFormats = []oldFormat{
	{
		// One file per entry, in directories by namespace and key.
		dir: "v1", depth: 3,
		kinds: []ownKind{
			{name: regexp.MustCompile(`^[0-9a-f]{64}(-[0-9a-f]{64})?$`), magic: []byte("PLUMBC1\n")},
			{name: regexp.MustCompile(`^\.tmp-[0-9]+$`), magic: []byte("PLUMBC1\n"), empty: true},
		},
	},
	{
		// Packs without a magic of their own: the first entry's.
		dir: "v2",
		kinds: []ownKind{
			{name: regexp.MustCompile(`^[0-9a-f]{16}-[0-9a-f]{16}\.pack$`), magic: []byte("PLUMBC2\n"), empty: true},
			{name: regexp.MustCompile(`^[0-9a-f]{16}-[0-9a-f]{16}\.idx$`), magic: []byte("PLUMBI2\n")},
			{name: regexp.MustCompile(`^\.tmp-[0-9]+$`), magic: []byte("PLUMBI2\n"), empty: true},
		},
	},
}

// oldFormat is a format directory plumb wrote: its name, how many levels
// of directories below it hold its files, and its files' kinds.
type oldFormat struct {
	dir   string
	depth int
	kinds []ownKind
}

// ownFile is a file of an old format found in one of its directories.
type ownFile struct {
	dir  *os.Root
	name string
	kind ownKind
	mod  time.Time
}

// subdir is a directory below a format directory, in its parent.
type subdir struct {
	parent *os.Root
	name   string
}

// removeOtherFormats removes the files of the formats plumb wrote before
// this one that nothing has used for staleFormat.
func removeOtherFormats(top *os.Root) {
	for _, f := range oldFormats {
		if f.dir != formatDir {
			f.remove(top)
		}
	}
}

func (f oldFormat) remove(top *os.Root) {
	root, err := openDir(top, f.dir)
	if err != nil {
		return // absent, or not a directory
	}
	var opened []*os.Root
	defer func() {
		for _, r := range opened {
			_ = r.Close()
		}
		_ = root.Close()
	}()
	var files []ownFile
	var dirs []subdir
	var walk func(dir *os.Root, depth int)
	walk = func(dir *os.Root, depth int) {
		d, err := dir.Open(".")
		if err != nil {
			return
		}
		entries, err := d.ReadDir(-1)
		_ = d.Close()
		if err != nil {
			return
		}
		for _, e := range entries {
			switch {
			case e.IsDir() && depth < f.depth:
				sub, err := openDir(dir, e.Name())
				if err != nil {
					continue
				}
				opened = append(opened, sub)
				dirs = append(dirs, subdir{dir, e.Name()})
				walk(sub, depth+1)
			case e.Type().IsRegular():
				for _, k := range f.kinds {
					if !k.name.MatchString(e.Name()) {
						continue
					}
					if info, err := e.Info(); err == nil {
						files = append(files, ownFile{dir, e.Name(), k, info.ModTime()})
					}
					break
				}
			}
		}
	}
	walk(root, 0)
	for _, file := range files {
		if time.Since(file.mod) <= staleFormat {
			return // another plumb version still uses it
		}
	}
	removed := false
	for _, file := range files {
		removed = file.kind.remove(file.dir, file.name) || removed
	}
	if !removed {
		return
	}
	// Deepest first; a directory that still holds anything stays.
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = dirs[i].parent.Remove(dirs[i].name)
	}
	_ = top.Remove(f.dir)
}

// removeStaleTemps removes the temporary files of kind in root that a
// crashed run left (older than staleTemp).
func removeStaleTemps(root *os.Root, kind ownKind) {
	d, err := root.Open(".")
	if err != nil {
		return
	}
	entries, err := d.ReadDir(-1)
	_ = d.Close()
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !kind.name.MatchString(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			kind.remove(root, e.Name())
		}
	}
}
