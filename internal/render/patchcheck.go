package render

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// jsonPatchOps are the operations of RFC 6902.
var jsonPatchOps = []string{"add", "remove", "replace", "move", "copy", "test"}

// checkPatch validates one patch entry before krusty sees it, so that an
// invalid patch is reported at the kustomization entry (and, in the
// message, at the line of the patch itself) instead of as krusty's bare
// "Unexpected kind: frobnicate". entry is the kustomization path of the
// entry; file is the patch file ("" for an inline patch at inline).
// strategicOnly is set for patchesStrategicMerge, jsonOnly for
// patchesJson6902.
func (g *graph) checkPatch(n *node, entry manifest.Path, file string, inline manifest.Path, hasTarget, strategicOnly, jsonOnly bool) {
	k := n.k
	fail := func(at *manifest.Location, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if at != nil && at.File != "" {
			msg = manifest.FormatLocation(*at) + ": " + msg
		}
		p := *kustProblem(k.at(entry), "%s: invalid patch: %s", entry, msg)
		if at != nil && at.File != "" && *at != p.Location {
			p.Related = []manifest.Location{*at}
		}
		n.problems = append(n.problems, p)
	}
	var docs []*srcDoc
	if file != "" {
		full, err := resolve(k.Dir, file)
		if err != nil {
			return // reported with the file checks
		}
		data, err := g.kc.files.read(full)
		if err != nil {
			return
		}
		parsed, problems := manifest.Parse(full, data, g.kc.limits)
		for _, p := range problems {
			if p.Input {
				loc := p.Location
				fail(&loc, "%s", p.Message)
				return
			}
		}
		for _, d := range parsed {
			docs = append(docs, &srcDoc{doc: d})
		}
	} else {
		docs = g.docs.inline(k, inline)
		if len(docs) == 0 {
			if _, v := k.node(inline); v != nil && v.Kind == yaml.ScalarNode {
				if why := inlineSyntaxError(v.Value, g.kc.limits); why != "" {
					fail(nil, "the inline patch is not valid YAML: %s", why)
				} else {
					fail(nil, "the patch is empty")
				}
			}
			return
		}
	}
	if len(docs) == 0 {
		fail(nil, "the patch is empty")
		return
	}
	if isJSONPatch(docs) {
		if strategicOnly {
			fail(nil, "a JSON 6902 patch (a list of operations) cannot be a strategic merge patch")
			return
		}
		if !hasTarget {
			fail(nil, "a JSON 6902 patch needs a target: add target (kind, name...) to the entry")
			return
		}
		g.checkOps(docs[0], fail)
		n.copyOps = append(n.copyOps, copyOps(docs[0])...)
		return
	}
	if jsonOnly {
		loc := docs[0].locate(docs[0].doc.Node, nil)
		fail(&loc, "patchesJson6902 needs a list of operations (op, path, value)")
		return
	}
	for _, sd := range docs {
		loc := sd.locate(sd.doc.Node, nil)
		m, ok := sd.doc.Value.(map[string]any)
		if !ok {
			fail(&loc, "a patch is a strategic merge patch (a partial object) or a JSON 6902 patch (a list of operations); this is neither")
			return
		}
		if !hasTarget {
			id := manifest.IDOf(m, "")
			if id.Kind == "" || id.Name == "" {
				fail(&loc, "a strategic merge patch without target needs kind and metadata.name to find the object it patches")
				return
			}
		}
	}
	if hasTarget && len(docs) > 1 {
		fail(nil, "a patch with a target holds one strategic merge patch, this one holds %d documents", len(docs))
	}
}

// copyOps locates the copy operations of a JSON 6902 patch.
func copyOps(sd *srcDoc) []manifest.Location {
	var out []manifest.Location
	for i, op := range sd.doc.Node.Content {
		if op.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(op.Content); j += 2 {
			if op.Content[j].Value == "op" && op.Content[j+1].Value == "copy" {
				out = append(out, sd.locate(sd.doc.Node, manifest.Path{manifest.Index(i), manifest.Key("op")}))
			}
		}
	}
	return out
}

// checkOps validates the operations of a JSON 6902 patch.
func (g *graph) checkOps(sd *srcDoc, fail func(*manifest.Location, string, ...any)) {
	root := sd.doc.Node
	for i, op := range root.Content {
		at := sd.locate(root, manifest.Path{manifest.Index(i)})
		if op.Kind != yaml.MappingNode {
			fail(&at, "operation %d is not a mapping (op, path, value)", i)
			return
		}
		fields := map[string]*yaml.Node{}
		for j := 0; j+1 < len(op.Content); j += 2 {
			fields[op.Content[j].Value] = op.Content[j+1]
		}
		name := ""
		if n := fields["op"]; n != nil {
			name = n.Value
		}
		if !slices.Contains(jsonPatchOps, name) {
			at := sd.locate(root, manifest.Path{manifest.Index(i), manifest.Key("op")})
			if fields["op"] == nil {
				fail(&at, "operation %d has no op (add, remove, replace, move, copy or test)", i)
			} else {
				fail(&at, "unknown operation %q (want add, remove, replace, move, copy or test)", name)
			}
			return
		}
		if p := fields["path"]; p == nil || (p.Value != "" && !strings.HasPrefix(p.Value, "/")) {
			at := sd.locate(root, manifest.Path{manifest.Index(i), manifest.Key("path")})
			fail(&at, "operation %d (%s) needs a path that is a JSON pointer such as /spec/replicas", i, name)
			return
		}
		if (name == "add" || name == "replace" || name == "test") && fields["value"] == nil {
			fail(&at, "operation %d (%s) has no value", i, name)
			return
		}
		if (name == "move" || name == "copy") && fields["from"] == nil {
			fail(&at, "operation %d (%s) has no from", i, name)
			return
		}
	}
}

// inlineSyntaxError says why an inline patch does not parse, with the line
// inside the patch (the patch's own lines do not map onto the
// kustomization's when it is a quoted string).
func inlineSyntaxError(patch string, limits manifest.Limits) string {
	_, problems := manifest.Parse("patch", []byte(patch), limits)
	for _, p := range problems {
		if p.Input {
			return fmt.Sprintf("%s (line %d of the patch)", strings.TrimPrefix(p.Message, "YAML syntax error: "), p.Location.Line)
		}
	}
	return ""
}
