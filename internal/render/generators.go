package render

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/api/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// generators follows configMapGenerator and secretGenerator entries: a new
// resource per "create" entry, new writers on the existing resource for
// "merge" and "replace". Each key of the generated data points at the
// literal that set it, the line of the env file that declared it, or the
// file whose content it holds.
func (t *tracer) generators(k *kustomization, ra []*tres) []*tres {
	for i, g := range k.K.ConfigMapGenerator {
		ra = t.generate(k, ra, "configMapGenerator", i, "ConfigMap", g.GeneratorArgs, "")
	}
	for i, g := range k.K.SecretGenerator {
		ra = t.generate(k, ra, "secretGenerator", i, "Secret", g.GeneratorArgs, g.Type)
	}
	return ra
}

func (t *tracer) generate(k *kustomization, ra []*tres, field string, i int, kind string, args types.GeneratorArgs, secretType string) []*tres {
	base := manifest.Path{manifest.Key(field), manifest.Index(i)}
	at := k.at(base)
	opts := types.MergeGlobalOptionsIntoLocal(args.Options, k.K.GeneratorOptions)

	var r *tres
	switch types.NewGenerationBehavior(args.Behavior) {
	case types.BehaviorMerge, types.BehaviorReplace:
		for _, x := range ra {
			if x.gvk.Kind == kind && x.gvk.Group == "" && x.hasName(args.Name) && x.inNamespace(args.Namespace) {
				r = x
				break
			}
		}
		if r == nil {
			return ra // krusty reports the missing resource
		}
		if types.NewGenerationBehavior(args.Behavior) == types.BehaviorReplace {
			for _, f := range []string{"data", "binaryData"} {
				p := manifest.Path{manifest.Key(f)}
				r.writers = append(r.writers, &leafWriter{at: at, match: exactly(p), covers: p})
			}
		}
	default:
		r = &tres{
			gvk:       gvkOf("v1", kind),
			names:     []string{args.Name},
			nss:       []string{args.Namespace},
			labels:    map[string]string{},
			annots:    map[string]string{},
			generated: true,
			hash:      opts == nil || !opts.DisableNameSuffixHash,
			start:     at,
		}
		for _, f := range []string{"data", "binaryData", "kind", "apiVersion"} {
			r.writers = append(r.writers, &leafWriter{at: at, match: exactly(manifest.Path{manifest.Key(f)})})
		}
		r.writers = append(r.writers, &leafWriter{at: at, match: exactly(nil)})
		ra = append(ra, r)
	}
	name := args.Name
	r.writers = append(r.writers, &leafWriter{at: k.at(base.Child(manifest.Key("name"))), match: exactly(manifest.MustParsePath("metadata.name")),
		verify: func(v any) bool { s, _ := v.(string); return strings.Contains(s, name) }})
	if args.Namespace != "" {
		r.writers = append(r.writers, &leafWriter{at: k.at(base.Child(manifest.Key("namespace"))), match: exactly(manifest.MustParsePath("metadata.namespace"))})
	}
	if secretType != "" {
		r.writers = append(r.writers, &leafWriter{at: k.at(base.Child(manifest.Key("type"))), match: exactly(manifest.Path{manifest.Key("type")})})
	}
	dataKey := func(key string, binary bool, loc manifest.Location) {
		f := "data"
		if binary {
			f = "binaryData"
		}
		r.writers = append(r.writers, &leafWriter{at: loc, match: exactly(manifest.Path{manifest.Key(f), manifest.Key(key)})})
	}
	for j, lit := range args.LiteralSources {
		if key, _, ok := strings.Cut(lit, "="); ok {
			dataKey(key, false, k.at(base.Child(manifest.Key("literals"), manifest.Index(j))))
		}
	}
	for j, src := range args.FileSources {
		key, file, hasKey := strings.Cut(src, "=")
		if !hasKey {
			key, file = path.Base(src), src
		}
		full := resolvedPath(k, file)
		entry := k.at(base.Child(manifest.Key("files"), manifest.Index(j)))
		if full == "" {
			continue
		}
		if st, err := fs.Stat(t.docs.files.fsys, full); err == nil && st.IsDir() {
			for _, f := range dirFiles(t.docs.files.fsys, full) {
				data, _ := t.docs.files.read(f)
				dataKey(path.Base(f), !utf8.Valid(data), fileStart(f))
			}
			continue
		}
		data, err := t.docs.files.read(full)
		if err != nil {
			dataKey(key, false, entry)
			continue
		}
		dataKey(key, !utf8.Valid(data), fileStart(full))
	}
	for _, src := range args.EnvSources {
		full := resolvedPath(k, src)
		data, err := t.docs.files.read(full)
		if full == "" || err != nil {
			continue
		}
		for _, kv := range envKeys(data) {
			dataKey(kv.key, false, manifest.Location{File: full, Line: kv.line, Column: kv.col, EndLine: kv.line, EndColumn: kv.col + len(kv.text)})
		}
	}
	if opts != nil {
		for name := range opts.Labels {
			r.writers = append(r.writers, &leafWriter{at: t.optionAt(k, base, "labels", name),
				match: exactly(manifest.Path{manifest.Key("metadata"), manifest.Key("labels"), manifest.Key(name)})})
			r.labels[name] = opts.Labels[name]
		}
		for name := range opts.Annotations {
			r.writers = append(r.writers, &leafWriter{at: t.optionAt(k, base, "annotations", name),
				match: exactly(manifest.Path{manifest.Key("metadata"), manifest.Key("annotations"), manifest.Key(name)})})
			r.annots[name] = opts.Annotations[name]
		}
		if opts.Immutable {
			r.writers = append(r.writers, &leafWriter{at: t.optionAt(k, base, "immutable", ""), match: exactly(manifest.Path{manifest.Key("immutable")})})
		}
	}
	return ra
}

// optionAt finds a generator option: in the entry's own options, else in
// the kustomization's generatorOptions.
func (t *tracer) optionAt(k *kustomization, base manifest.Path, field, name string) manifest.Location {
	for _, p := range []manifest.Path{base.Child(manifest.Key("options")), {manifest.Key("generatorOptions")}} {
		q := p.Child(manifest.Key(field))
		if name != "" {
			q = q.Child(manifest.Key(name))
		}
		if key, _ := k.node(q); key != nil {
			return k.at(q)
		}
	}
	return k.at(base)
}

func fileStart(file string) manifest.Location {
	return manifest.Location{File: file, Line: 1, Column: 1, EndLine: 1, EndColumn: 1}
}

type envKey struct {
	key       string
	line, col int
	text      string
}

// envKeys reads the keys of an env file as kustomize does (KEY=VALUE or
// KEY per line, # comments, leading blanks ignored), with their positions.
func envKeys(data []byte) []envKey {
	var out []envKey
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i == 0 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		line = bytes.TrimRight(line, "\r")
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		key, _, _ := strings.Cut(string(trimmed), "=")
		out = append(out, envKey{key: key, line: i + 1, col: len(line) - len(trimmed) + 1, text: string(trimmed)})
	}
	return out
}
