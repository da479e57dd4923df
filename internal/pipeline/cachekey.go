package pipeline

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
)

// analysisConfigKey is the digest of everything in the configuration that
// can change what an analyzer finds in a target: the settings of every
// engine, the rules, the render options (Template parameters, limits), the
// Kubernetes version, and the content of every file they name (rules
// files, check catalogs, the reference with its diff configuration and
// overrides, KubeVirt Template directories). What decides only which
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
		KubeVirt          config.KubeVirtSettings
		Reference         config.Reference
		Checks            config.Checks
		KubernetesVersion config.KubernetesVersion
		Helm              config.HelmConfig
	}{cfg.File, cfg.Exclude, cfg.Limits, cfg.Rules, cfg.Render, cfg.KubeVirt, cfg.Reference, cfg.Checks, cfg.KubernetesVersion, cfg.Helm}
	data, err := json.Marshal(settings)
	if err != nil {
		return cache.Key{}, false
	}
	h := cache.NewHasher("analysis-config").Bytes(data)
	for _, r := range cfg.Rules.Files {
		hashPath(h, r.Path)
	}
	for _, d := range cfg.Checks.Dirs {
		hashPath(h, d.Path)
	}
	for _, d := range cfg.KubeVirt.TemplateDirs {
		hashPath(h, absolute(cfg.Root, d))
	}
	if ref := cfg.Reference; ref.Path != "" {
		p := ref.Path
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			p = filepath.Dir(p) // a reference is its metadata's directory
		}
		hashPath(h, p)
		hashPath(h, ref.DiffConfig)
		hashPath(h, ref.Overrides)
	}
	return h.Sum(), true
}

// absolute resolves p against dir.
func absolute(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// hashPath adds a file's content, or every file below a directory with its
// relative path, to h; a path that cannot be read adds why.
func hashPath(h *cache.Hasher, p string) {
	h.String(p)
	if p == "" {
		return
	}
	st, err := os.Stat(p)
	if err != nil {
		h.String("error: " + err.Error())
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
			h.String(rel)
			hashFile(h, name)
		}
		return nil
	})
	if err != nil {
		h.String("error: " + err.Error())
	}
}

func hashFile(h *cache.Hasher, name string) {
	data, err := os.ReadFile(name)
	if err != nil {
		h.String("error: " + err.Error())
		return
	}
	h.Key(cache.Digest(data))
}
