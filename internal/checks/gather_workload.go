package checks

import (
	"fmt"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// podContainer is one container of a workload with where it is.
type podContainer struct {
	content map[string]any
	init    bool
	path    manifest.Path
}

// podContainers lists a workload's init containers then its containers.
func podContainers(o *manifest.Object, content map[string]any, which string) (spec manifest.Path, list []podContainer, ferr *FactError) {
	pp, ok := podSpecPath(o.ID.Kind)
	if !ok {
		return nil, nil, factErr("containers-not-a-workload", "%s has no pod template, so it has no containers", o.ID.Kind)
	}
	pod, _ := manifest.Lookup(content, pp)
	podMap, _ := pod.(map[string]any)
	for _, f := range []struct {
		key  string
		init bool
	}{{"initContainers", true}, {"containers", false}} {
		if which == "init" && !f.init || which == "regular" && f.init {
			continue
		}
		items, _ := podMap[f.key].([]any)
		for i, c := range items {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			list = append(list, podContainer{content: cm, init: f.init, path: pp.Child(manifest.Key(f.key), manifest.Index(i))})
		}
	}
	key := "containers"
	if which == "init" {
		key = "initContainers"
	}
	return pp.Child(manifest.Key(key)), list, nil
}

var containersGatherer = &gathererDef{
	name: "containers", version: 1,
	Summary: "The containers of any workload kind (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, ...) " +
		"as a list: each container's own fields plus init (true for init containers). Init containers come first.",
	Argument: "all (default), init or regular",
	prepare: func(arg string, _ TargetType) (gatherFunc, error) {
		which := strings.TrimSpace(arg)
		switch which {
		case "":
			which = "all"
		case "all", "init", "regular":
		default:
			return nil, fmt.Errorf("argument %q: want all, init or regular", arg)
		}
		return func(s *subject) gathered {
			at, list, ferr := podContainers(s.obj, s.target.content(s.obj), which)
			g := gathered{at: &origin{obj: s.obj, path: at}, err: ferr}
			if ferr != nil {
				return g
			}
			value := make([]any, len(list))
			g.items = make([]item, len(list))
			for i, c := range list {
				m := make(map[string]any, len(c.content)+1)
				for k, v := range c.content {
					m[k] = v
				}
				m["init"] = c.init
				value[i] = m
				g.items[i] = item{key: i, at: origin{obj: s.obj, path: c.path}}
			}
			g.value = value
			return g
		}, nil
	},
}

var imageGatherer = &gathererDef{
	name: "image", version: 1,
	Summary: "The image reference of each container, parsed: container, init, image, registry (docker.io when implicit), " +
		"repository (library/ added for Docker Hub official images), tag (\"\" when absent), digest (\"\" when absent) " +
		"and trigger (true when an OpenShift image-change trigger sets the container's image). " +
		"With * a list over all containers (init first); with a container name one map.",
	Argument: "* (default) or a container name",
	prepare: func(arg string, _ TargetType) (gatherFunc, error) {
		name := strings.TrimSpace(arg)
		if name == "" {
			name = "*"
		}
		return func(s *subject) gathered {
			content := s.target.content(s.obj)
			at, list, ferr := podContainers(s.obj, content, "all")
			if ferr != nil {
				ferr.Type = "image-not-a-workload"
				return gathered{at: &origin{obj: s.obj, path: at}, err: ferr}
			}
			triggered := triggeredContainers(content)
			if name != "*" {
				for _, c := range list {
					if c.content["name"] == name {
						return gathered{value: imageFact(c, triggered), at: &origin{obj: s.obj, path: c.path.Child(manifest.Key("image"))}}
					}
				}
				return gathered{at: &origin{obj: s.obj, path: at}, err: factErr("image-container-not-found", "%s has no container named %q", s.obj.ID.Kind, name)}
			}
			g := gathered{at: &origin{obj: s.obj, path: at}}
			value := make([]any, len(list))
			g.items = make([]item, len(list))
			for i, c := range list {
				value[i] = imageFact(c, triggered)
				g.items[i] = item{key: i, at: origin{obj: s.obj, path: c.path.Child(manifest.Key("image"))}}
			}
			g.value = value
			return g
		}, nil
	},
}

func imageFact(c podContainer, triggered map[string]bool) map[string]any {
	ref, _ := c.content["image"].(string)
	r := ParseImage(ref)
	name, _ := c.content["name"].(string)
	return map[string]any{
		"container":  name,
		"init":       c.init,
		"image":      ref,
		"registry":   r.Registry,
		"repository": r.Repository,
		"tag":        r.Tag,
		"digest":     r.Digest,
		"trigger":    triggered[name],
	}
}

// ImageRef is a parsed image reference.
type ImageRef struct {
	Registry, Repository, Tag, Digest string
}

// ParseImage parses an image reference the way container runtimes
// normalise it: a first component with a '.' or ':' or "localhost" is a
// registry, otherwise the registry is docker.io, whose single-name
// repositories live under library/.
func ParseImage(ref string) ImageRef {
	var r ImageRef
	name := strings.TrimSpace(ref)
	if name == "" {
		return r
	}
	if i := strings.IndexByte(name, '@'); i >= 0 {
		r.Digest = name[i+1:]
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 && i > strings.LastIndexByte(name, '/') {
		r.Tag = name[i+1:]
		name = name[:i]
	}
	first, rest, hasSlash := strings.Cut(name, "/")
	if hasSlash && (strings.ContainsAny(first, ".:") || first == "localhost") {
		r.Registry, r.Repository = first, rest
		return r
	}
	r.Registry, r.Repository = "docker.io", name
	if !hasSlash {
		r.Repository = "library/" + name
	}
	return r
}

var referencesGatherer = &gathererDef{
	name: "references", version: 1,
	Summary: "The ConfigMaps and Secrets a workload references (volumes, projected volumes, env valueFrom, envFrom, " +
		"imagePullSecrets), as a list of {kind, name, optional, field}; each element points at the line naming it.",
	Argument: "all (default), configmap or secret",
	prepare: func(arg string, _ TargetType) (gatherFunc, error) {
		which := strings.ToLower(strings.TrimSpace(arg))
		switch which {
		case "":
			which = "all"
		case "all", "configmap", "secret":
		default:
			return nil, fmt.Errorf("argument %q: want all, configmap or secret", arg)
		}
		return func(s *subject) gathered {
			content := s.target.content(s.obj)
			pp, ok := podSpecPath(s.obj.ID.Kind)
			if !ok {
				return gathered{at: &origin{obj: s.obj}, err: factErr("references-not-a-workload", "%s has no pod template", s.obj.ID.Kind)}
			}
			refs := podReferences(content, pp)
			g := gathered{at: &origin{obj: s.obj, path: pp}}
			value := []any{}
			for _, r := range refs {
				if which == "configmap" && r.kind != "ConfigMap" || which == "secret" && r.kind != "Secret" {
					continue
				}
				g.items = append(g.items, item{key: len(value), at: origin{obj: s.obj, path: r.path}})
				value = append(value, map[string]any{"kind": r.kind, "name": r.name, "optional": r.optional, "field": r.path.String()})
			}
			g.value = value
			return g
		}, nil
	},
}

type podRef struct {
	kind, name string
	optional   bool
	path       manifest.Path
}

// podReferences walks a pod spec for ConfigMap and Secret names.
func podReferences(content map[string]any, pp manifest.Path) []podRef {
	var refs []podRef
	podV, _ := manifest.Lookup(content, pp)
	pod, _ := podV.(map[string]any)
	if pod == nil {
		return nil
	}
	add := func(kind string, m map[string]any, nameKey string, at manifest.Path) {
		name, ok := m[nameKey].(string)
		if !ok {
			return
		}
		opt, _ := m["optional"].(bool)
		refs = append(refs, podRef{kind: kind, name: name, optional: opt, path: at.Child(manifest.Key(nameKey))})
	}
	vols, _ := pod["volumes"].([]any)
	for i, v := range vols {
		vm, _ := v.(map[string]any)
		at := pp.Child(manifest.Key("volumes"), manifest.Index(i))
		if cm, ok := vm["configMap"].(map[string]any); ok {
			add("ConfigMap", cm, "name", at.Child(manifest.Key("configMap")))
		}
		if sec, ok := vm["secret"].(map[string]any); ok {
			add("Secret", sec, "secretName", at.Child(manifest.Key("secret")))
		}
		if pr, ok := vm["projected"].(map[string]any); ok {
			srcs, _ := pr["sources"].([]any)
			for j, src := range srcs {
				sm, _ := src.(map[string]any)
				sat := at.Child(manifest.Key("projected"), manifest.Key("sources"), manifest.Index(j))
				if cm, ok := sm["configMap"].(map[string]any); ok {
					add("ConfigMap", cm, "name", sat.Child(manifest.Key("configMap")))
				}
				if sec, ok := sm["secret"].(map[string]any); ok {
					add("Secret", sec, "name", sat.Child(manifest.Key("secret")))
				}
			}
		}
	}
	for _, key := range []string{"initContainers", "containers"} {
		cs, _ := pod[key].([]any)
		for i, c := range cs {
			cm, _ := c.(map[string]any)
			cat := pp.Child(manifest.Key(key), manifest.Index(i))
			envs, _ := cm["env"].([]any)
			for j, e := range envs {
				em, _ := e.(map[string]any)
				vf, _ := em["valueFrom"].(map[string]any)
				eat := cat.Child(manifest.Key("env"), manifest.Index(j), manifest.Key("valueFrom"))
				if r, ok := vf["configMapKeyRef"].(map[string]any); ok {
					add("ConfigMap", r, "name", eat.Child(manifest.Key("configMapKeyRef")))
				}
				if r, ok := vf["secretKeyRef"].(map[string]any); ok {
					add("Secret", r, "name", eat.Child(manifest.Key("secretKeyRef")))
				}
			}
			froms, _ := cm["envFrom"].([]any)
			for j, f := range froms {
				fm, _ := f.(map[string]any)
				fat := cat.Child(manifest.Key("envFrom"), manifest.Index(j))
				if r, ok := fm["configMapRef"].(map[string]any); ok {
					add("ConfigMap", r, "name", fat.Child(manifest.Key("configMapRef")))
				}
				if r, ok := fm["secretRef"].(map[string]any); ok {
					add("Secret", r, "name", fat.Child(manifest.Key("secretRef")))
				}
			}
		}
	}
	ips, _ := pod["imagePullSecrets"].([]any)
	for i, s := range ips {
		sm, _ := s.(map[string]any)
		add("Secret", sm, "name", pp.Child(manifest.Key("imagePullSecrets"), manifest.Index(i)))
	}
	return refs
}
