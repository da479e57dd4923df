package render

import (
	"regexp"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// entryLocator recognises a krusty error that names an entry only by its
// content (a literal, a replicas name, a replacement's source) and finds
// that entry in a kustomization.
type entryLocator struct {
	re *regexp.Regexp
	// find returns the path of the entry in k that the match m is about,
	// nil when k has none.
	find func(k *kustomization, m []string) manifest.Path
}

var entryLocators = []entryLocator{
	{
		// kv.go: "invalid literal source novalue, expected key=value"
		re: regexp.MustCompile(`invalid literal source (.*?), expected key=value`),
		find: func(k *kustomization, m []string) manifest.Path {
			for gi, g := range k.K.ConfigMapGenerator {
				for li, lit := range g.LiteralSources {
					if lit == m[1] {
						return manifest.Path{manifest.Key("configMapGenerator"), manifest.Index(gi), manifest.Key("literals"), manifest.Index(li)}
					}
				}
			}
			for gi, g := range k.K.SecretGenerator {
				for li, lit := range g.LiteralSources {
					if lit == m[1] {
						return manifest.Path{manifest.Key("secretGenerator"), manifest.Index(gi), manifest.Key("literals"), manifest.Index(li)}
					}
				}
			}
			return nil
		},
	},
	{
		// ReplicaCountTransformer: "resource with name web does not match a
		// config with the following GVK [...]"
		re: regexp.MustCompile(`resource with name (\S+) does not match a config`),
		find: func(k *kustomization, m []string) manifest.Path {
			for i, r := range k.K.Replicas {
				if r.Name == m[1] {
					return manifest.Path{manifest.Key("replicas"), manifest.Index(i), manifest.Key("name")}
				}
			}
			return nil
		},
	},
	{
		// ReplacementTransformer: "nothing selected by
		// ConfigMap.[noVer].[noGrp]/nope.[noNs]:data.a"
		re: regexp.MustCompile(`nothing selected by ([A-Za-z0-9]+)\.[^/]*/([^.:]+)\.`),
		find: func(k *kustomization, m []string) manifest.Path {
			for i, r := range k.K.Replacements {
				if r.Source != nil && r.Source.Kind == m[1] && r.Source.Name == m[2] {
					return manifest.Path{manifest.Key("replacements"), manifest.Index(i), manifest.Key("source")}
				}
			}
			return nil
		},
	},
	{
		// resmap: a generator makes an object that already exists without
		// saying merge or replace: the last entry of that name.
		re: regexp.MustCompile(`id (ConfigMap|Secret) "(?:[^"/]*/)?([^"]+)" exists; can not use behavior`),
		find: func(k *kustomization, m []string) manifest.Path {
			var found manifest.Path
			if m[1] == "ConfigMap" {
				for i, g := range k.K.ConfigMapGenerator {
					if g.Name == m[2] {
						found = manifest.Path{manifest.Key("configMapGenerator"), manifest.Index(i), manifest.Key("name")}
					}
				}
			} else {
				for i, g := range k.K.SecretGenerator {
					if g.Name == m[2] {
						found = manifest.Path{manifest.Key("secretGenerator"), manifest.Index(i), manifest.Key("name")}
					}
				}
			}
			return found
		},
	},
}

// fieldLocators find entries that krusty's error names by field.
var fieldLocators = []entryLocator{
	{
		// generators: "a configmap must have a name" (for Secrets too).
		re: regexp.MustCompile(`a configmap must have a name`),
		find: func(k *kustomization, _ []string) manifest.Path {
			for i, g := range k.K.ConfigMapGenerator {
				if g.Name == "" {
					return manifest.Path{manifest.Key("configMapGenerator"), manifest.Index(i)}
				}
			}
			for i, g := range k.K.SecretGenerator {
				if g.Name == "" {
					return manifest.Path{manifest.Key("secretGenerator"), manifest.Index(i)}
				}
			}
			return nil
		},
	},
	{
		// "the field 'sortOptions.order' must be one of [fifo, legacy]"
		re: regexp.MustCompile(`the field '([A-Za-z.]+)' must be`),
		find: func(k *kustomization, m []string) manifest.Path {
			p, err := manifest.ParsePath(m[1])
			if err != nil {
				return nil
			}
			if key, _ := k.node(p); key == nil {
				return nil
			}
			return p
		},
	},
}

// locateByContent finds the entry a krusty error names by content, in the
// closure's order (the target first).
func locateByContent(c *closure, msg string) (manifest.Location, bool) {
	for _, l := range append(entryLocators, fieldLocators...) {
		m := l.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		for _, n := range c.nodes {
			if n.k.Doc == nil {
				continue
			}
			if p := l.find(n.k, m); p != nil {
				return n.k.at(p), true
			}
		}
	}
	return manifest.Location{}, false
}
