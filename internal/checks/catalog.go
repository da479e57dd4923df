package checks

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// Source is one catalog directory: the check files <id>.yaml directly in
// Dir of FS. Display prefixes file names in messages (the directory as the
// user named it, or its repository-relative path).
type Source struct {
	FS      fs.FS
	Dir     string
	Display string
}

// Catalog is every check read from the sources, in id order.
type Catalog struct {
	// Checks holds every check read, usable or not, sorted by id; a
	// duplicate id keeps the first source's check.
	Checks []*Check
	// Diagnostics are all lint results, sorted by file and line.
	Diagnostics []Diagnostic
	byID        map[string]*Check
}

// Load reads and lints the checks of the sources. A check that fails lint is
// kept (with its diagnostics) so that callers can report it; Usable leaves
// it out.
func Load(sources ...Source) *Catalog {
	cat := &Catalog{byID: map[string]*Check{}}
	type job struct {
		name string
		data []byte
	}
	var jobs []job
	for _, src := range sources {
		entries, err := fs.ReadDir(src.FS, src.Dir)
		if err != nil {
			cat.Diagnostics = append(cat.Diagnostics, Diagnostic{File: src.Display, Level: LevelError, Message: fmt.Sprintf("cannot read the catalog directory: %v", cleanFSError(err))})
			continue
		}
		for _, e := range entries {
			name := e.Name()
			display := path.Join(src.Display, name)
			if e.IsDir() {
				continue
			}
			switch {
			case strings.HasSuffix(name, ".yaml"):
			case strings.HasSuffix(name, ".yml"):
				cat.Diagnostics = append(cat.Diagnostics, Diagnostic{File: display, Level: LevelWarning, Message: "not read: check files are named <id>.yaml"})
				continue
			default:
				// Wanda skips other files (X.yaml.wip, VERSION, README.md).
				continue
			}
			data, err := manifest.ReadRegular(src.FS, path.Join(src.Dir, name), manifest.DefaultLimits.MaxFileBytes)
			if err != nil {
				cat.Diagnostics = append(cat.Diagnostics, Diagnostic{File: display, Level: LevelError, Message: fmt.Sprintf("cannot read the file: %v", cleanFSError(err))})
				continue
			}
			jobs = append(jobs, job{display, data})
		}
	}
	// Compiling CEL dominates loading; spread it over the cores.
	checks := make([]*Check, len(jobs))
	parallel.ForEach(0, len(jobs), func(i int) {
		c := parseCheck(jobs[i].name, jobs[i].data)
		c.lint()
		checks[i] = c
	})

	for _, c := range checks {
		if c.ID != "" {
			if first, dup := cat.byID[c.ID]; dup {
				c.addDiag(LevelError, c.Pos, "id", "duplicate check id %q: already defined at %s:%d", c.ID, first.File, first.Pos.Line)
				c.broken = true
				cat.Diagnostics = append(cat.Diagnostics, c.Diagnostics...)
				continue
			}
			cat.byID[c.ID] = c
		}
		cat.Checks = append(cat.Checks, c)
		cat.Diagnostics = append(cat.Diagnostics, c.Diagnostics...)
	}
	slices.SortStableFunc(cat.Checks, func(a, b *Check) int { return strings.Compare(a.ID, b.ID) })
	sortDiagnostics(cat.Diagnostics)
	return cat
}

// cleanFSError drops the operation prefix of fs errors.
func cleanFSError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// Get returns the check with an id, or nil.
func (c *Catalog) Get(id string) *Check { return c.byID[id] }

// Usable returns the checks without lint errors, in id order.
func (c *Catalog) Usable() []*Check {
	var out []*Check
	for _, ch := range c.Checks {
		if !ch.HasErrors() && !ch.broken {
			out = append(out, ch)
		}
	}
	return out
}

// Errors returns the error-level diagnostics.
func (c *Catalog) Errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range c.Diagnostics {
		if d.Level == LevelError {
			out = append(out, d)
		}
	}
	return out
}

// Filter returns the usable checks that apply in env, as Wanda's catalog
// API filters them: the check-level when and the metadata must both match
// (an empty env matches every check).
func (c *Catalog) Filter(env map[string]any) []*Check {
	env = NormalizeEnv(env)
	ev := celMap(env)
	var out []*Check
	for _, ch := range c.Usable() {
		if ch.Applicable(env, ev) {
			out = append(out, ch)
		}
	}
	return out
}
