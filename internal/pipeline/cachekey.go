package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
)

// analysisConfigKey is the digest of everything in the configuration that
// can change what a cached analyzer (the checks, the reference comparison)
// finds in a target: their settings, the inspection rules (preprocess
// rules change the objects and their environment), the render options
// (Template parameters, Helm settings, limits), the Kubernetes version,
// and the content of every file they name (rules files, check catalogs,
// the reference with its diff configuration and overrides). The schema
// analyzer and the KubeVirt validations are not cached (they read every
// target: CRDs and Templates are found anywhere), so their settings are
// not part of it. What decides only which
// targets run or how findings are reported afterwards (paths, formats,
// --fail-on, the base revision, suppressions, shards) is left out, so that
// a pull request's run finds what its base branch's run stored. false
// when the configuration cannot be written down.
func analysisConfigKey(cfg *config.Config) (cache.Key, bool) {
	settings := struct {
		File              string
		Exclude           []string
		Include           []string
		Limits            any
		Rules             config.RulesSettings
		Render            config.RenderConfig
		Reference         config.Reference
		Checks            config.Checks
		KubernetesVersion config.KubernetesVersion
		Helm              config.HelmConfig
	}{cfg.File, cfg.Exclude, cfg.Include, cfg.Limits, cfg.Rules, cfg.Render, cfg.Reference, cfg.Checks, cfg.KubernetesVersion, cfg.Helm}
	data, err := json.Marshal(settings)
	if err != nil {
		return cache.Key{}, false
	}
	h := cache.NewHasher("analysis-config").Bytes(rootFree(cfg.Root, data))
	files := &contentHasher{h: h, root: cfg.Root}
	for _, r := range cfg.Rules.Files {
		files.path(r.Path)
	}
	for _, d := range cfg.Checks.Dirs {
		files.path(d.Path)
	}
	if ref := cfg.Reference; ref.Path != "" {
		p := ref.Path
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			p = filepath.Dir(p) // a reference is its metadata's directory
		}
		files.path(p)
		files.path(ref.DiffConfig)
		files.path(ref.Overrides)
	}
	return h.Sum(), true
}

// rootFree replaces the repository root in the encoded settings by a
// marker: paths inside the repository are resolved to absolute ones, and
// the same repository checked out elsewhere (a CI runner's work directory,
// a laptop) must find the same entries. What those paths hold is hashed
// by content (contentHasher); what findings say about them uses the
// repository-relative names, which stay in the settings.
func rootFree(root string, settings []byte) []byte {
	if root == "" {
		return settings
	}
	quoted, err := json.Marshal(filepath.Clean(root) + string(filepath.Separator))
	if err != nil || len(quoted) < 3 {
		return settings
	}
	prefix := quoted[1 : len(quoted)-1]
	return bytes.ReplaceAll(settings, prefix, []byte("<root>/"))
}

// contentHasher adds files and directories by content to a key, naming
// them relative to the repository root when they lie inside it.
type contentHasher struct {
	h    *cache.Hasher
	root string
	// git is the repository's .git, links resolved ("" until known).
	git string
}

// gitDir is the repository's .git directory, links resolved.
func (c *contentHasher) gitDir() string {
	if c.git == "" && c.root != "" {
		real, err := filepath.EvalSymlinks(c.root)
		if err != nil {
			real = c.root
		}
		c.git = filepath.Join(real, ".git")
	}
	return c.git
}

// name is how p enters the key: repository-relative when inside it.
func (c *contentHasher) name(p string) string {
	if c.root != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(c.root, p); err == nil && filepath.IsLocal(rel) {
			return "<root>/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// path adds a file's content, or every file below a directory with its
// relative path, to the key; a path that cannot be read adds why.
//
// The engines read these paths through an os.Root (compare, checks, CRDs,
// rules): a symbolic link is followed when it stays inside the directory
// and refused when it leaves it. So the key holds what decides what they
// read: the directory the path leads to (a link given as the path is
// resolved, and where it leads is part of the key), every regular file
// below it by content, and every link below it by its target's text — a
// link retargeted between runs is another key — with, for a link to a file
// inside the directory, that file's content again (its own path holds it
// too). A link's target outside the directory, which the engines refuse,
// is not read. The repository's .git is never part of it.
func (c *contentHasher) path(p string) {
	h := c.h
	h.String(c.name(p))
	if p == "" {
		return
	}
	st, err := os.Stat(p)
	if err != nil {
		h.String("error: " + why(err))
		return
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		h.String("error: " + why(err))
		return
	}
	if real != filepath.Clean(p) {
		h.String("resolves to").String(c.name(real))
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			h.String("not a regular file") // a named pipe would block
			return
		}
		hashFile(h, real)
		return
	}
	c.walk(real, real, ".")
}

// walk adds the entries of dir, rel below the walk's top, in name order.
func (c *contentHasher) walk(top, dir, rel string) {
	h := c.h
	entries, err := os.ReadDir(dir)
	if err != nil {
		h.String("error: " + why(err))
	}
	for _, e := range entries {
		name, r := filepath.Join(dir, e.Name()), path.Join(rel, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(name)
			if err != nil {
				h.String(r).String("error: " + why(err))
				continue
			}
			h.String(r).String("link").String(target)
			if real, err := filepath.EvalSymlinks(name); err == nil && config.InRepository(top, real) {
				if st, err := os.Stat(real); err == nil && st.Mode().IsRegular() {
					hashFile(h, real)
				}
			}
		case e.IsDir():
			if name == c.gitDir() {
				continue
			}
			c.walk(top, name, r)
		case e.Type().IsRegular():
			h.String(r)
			hashFile(h, name)
		}
	}
}

// hashFile adds a regular file's content digest, read as a stream (a
// large file costs time, not memory).
func hashFile(h *cache.Hasher, name string) {
	f, err := os.Open(name)
	if err != nil {
		h.String("error: " + why(err))
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		h.String("not a regular file")
		return
	}
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		h.String("error: " + why(err))
		return
	}
	h.Bytes(d.Sum(nil))
}

// why is an error without the path it names (the path is in the key
// already, repository-relative).
func why(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
