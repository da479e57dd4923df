package config

import (
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Without git there is no repository top level to build an overlay from:
// `cd overlays/prod && plumb check .` would make the overlay's own
// directory the root, and its `../../base` would lead outside. kustomize
// itself builds the overlay with its bases wherever they are; so without
// git the root is the common parent of the paths and of every directory
// their kustomizations reach through relative resources, bases and
// components (read here, before anything is loaded, and only those
// fields). The reach is bounded: at most maxReach kustomizations are read,
// each at most maxReachBytes, and it never goes above the filesystem's
// root's children.

const (
	maxReach      = 256
	maxReachBytes = 1 << 20
)

// kustomizationNames are the file names kustomize reads, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// kustomizeReach is every directory the kustomizations at or below the
// given directories refer to as a relative directory entry, transitively.
func kustomizeReach(dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	queue := append([]string(nil), dirs...)
	for len(queue) > 0 && len(seen) < maxReach {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		for _, entry := range kustomizationEntries(dir) {
			next := filepath.Clean(filepath.Join(dir, filepath.FromSlash(entry)))
			if st, err := os.Stat(next); err == nil && st.IsDir() && !seen[next] && filepath.Dir(next) != next {
				out = append(out, next)
				queue = append(queue, next)
			}
		}
	}
	return out
}

// kustomizationEntries are the relative resources, bases and components of
// dir's kustomization (none when it has none, or it does not parse).
func kustomizationEntries(dir string) []string {
	for _, name := range kustomizationNames {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		data := make([]byte, maxReachBytes)
		n, _ := f.Read(data)
		_ = f.Close()
		var k struct {
			Resources  []string `yaml:"resources"`
			Bases      []string `yaml:"bases"`
			Components []string `yaml:"components"`
		}
		if yaml.Unmarshal(data[:n], &k) != nil {
			return nil
		}
		var out []string
		for _, e := range append(append(k.Resources, k.Bases...), k.Components...) {
			if e != "" && !filepath.IsAbs(e) && !strings.Contains(e, "://") && !strings.HasPrefix(e, "github.com/") {
				out = append(out, e)
			}
		}
		return out
	}
	return nil
}
