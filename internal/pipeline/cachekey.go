package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
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
		Limits            any
		Rules             config.RulesSettings
		Render            config.RenderConfig
		Reference         config.Reference
		Checks            config.Checks
		KubernetesVersion config.KubernetesVersion
		Helm              config.HelmConfig
	}{cfg.File, cfg.Exclude, cfg.Limits, cfg.Rules, cfg.Render, cfg.Reference, cfg.Checks, cfg.KubernetesVersion, cfg.Helm}
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
	if !st.IsDir() {
		hashFile(h, p)
		return
	}
	err = filepath.WalkDir(p, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			h.String("error: " + err.Error())
			return nil
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(p, name)
			h.String(filepath.ToSlash(rel))
			hashFile(h, name)
		}
		return nil
	})
	if err != nil {
		h.String("error: " + err.Error())
	}
}

// hashFile adds a file's content digest.
func hashFile(h *cache.Hasher, name string) {
	data, err := os.ReadFile(name)
	if err != nil {
		h.String("error: " + why(err))
		return
	}
	h.Key(cache.Digest(data))
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
