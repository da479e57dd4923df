package render

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A JSON 6902 operation that is well formed (checkOps) can still fail when
// krusty applies it: its path is missing from the object, or a test fails.
// krusty's error names the operation and the JSON pointer but neither the
// patch nor the kustomization; these expressions read them back out of the
// errors of evanphx/json-patch, which krusty uses.
var (
	jsonOpFailedRE   = regexp.MustCompile(`\b(add|remove|replace|move|copy|test) operation does not apply: (?:doc )?is missing (?:from |destination )?(?:path|key): "?(/[^"\s:]*|)"?`)
	jsonTestFailedRE = regexp.MustCompile(`\btesting value "?(/[^"\s:]*|)"? failed`)
	jsonOpErrorRE    = regexp.MustCompile(`\berror in (add|remove|replace|move|copy|test) for (?:path|from): '([^']*)'`)
)

// jsonOpFailure is a JSON 6902 operation of the closure that krusty could
// not apply.
type jsonOpFailure struct {
	// entry is the kustomization entry that lists the patch; op is the
	// operation's own position in the patch file (or inline patch).
	entry, op manifest.Location
	entryPath manifest.Path
	index     int
	// reason is the operation's error without krusty's wrapping.
	reason string
}

// locateJSONOpFailure finds the operation a krusty error is about: the first
// operation, in the closure's order (the target, then what it builds on),
// whose op and path (or from) are the ones the error names.
func (r *renderer) locateJSONOpFailure(c *closure, msg string) (jsonOpFailure, bool) {
	var op, pointer string
	var at []int
	if at = jsonOpFailedRE.FindStringSubmatchIndex(msg); at != nil {
		op, pointer = msg[at[2]:at[3]], msg[at[4]:at[5]]
	} else if at = jsonTestFailedRE.FindStringSubmatchIndex(msg); at != nil {
		op, pointer = "test", msg[at[2]:at[3]]
	} else if at = jsonOpErrorRE.FindStringSubmatchIndex(msg); at != nil {
		op, pointer = msg[at[2]:at[3]], msg[at[4]:at[5]]
	} else {
		return jsonOpFailure{}, false
	}
	// What krusty wraps around the operation's error (the accumulation of
	// each base on the way) says nothing the location does not.
	reason := msg[at[0]:]
	tr := &tracer{g: r.graph, docs: r.docs}
	for _, n := range c.nodes {
		k := n.k
		if k.Doc == nil {
			continue
		}
		for _, field := range []string{"patches", "patchesJson6902"} {
			list := k.K.Patches
			if field == "patchesJson6902" {
				list = k.K.PatchesJson6902
			}
			for i, pt := range list {
				entry := manifest.Path{manifest.Key(field), manifest.Index(i)}
				docs := tr.patchDocs(k, pt.Path, entry.Child(manifest.Key("patch")))
				if !isJSONPatch(docs) {
					continue
				}
				sd := docs[0]
				if j := matchingOp(sd.doc.Node, op, pointer); j >= 0 {
					return jsonOpFailure{
						entry:     k.at(entry),
						op:        sd.locate(sd.doc.Node, manifest.Path{manifest.Index(j)}),
						entryPath: entry,
						index:     j,
						reason:    reason,
					}, true
				}
			}
		}
	}
	return jsonOpFailure{}, false
}

// matchingOp returns the index of the operation with this op whose path or
// from is pointer, -1 when there is none. Some errors name only the last
// key of the pointer ("error in move for path: 'strategy'"); such a key
// matches a path or from that ends in it.
func matchingOp(ops *yaml.Node, op, pointer string) int {
	same := func(p string) bool {
		if strings.HasPrefix(pointer, "/") || pointer == "" {
			return p == pointer
		}
		return strings.HasSuffix(p, "/"+pointer)
	}
	for i, o := range ops.Content {
		if o.Kind != yaml.MappingNode {
			continue
		}
		fields := map[string]string{}
		for j := 0; j+1 < len(o.Content); j += 2 {
			fields[o.Content[j].Value] = o.Content[j+1].Value
		}
		if fields["op"] == op && (same(fields["path"]) || same(fields["from"])) {
			return i
		}
	}
	return -1
}

// problem reports the failure at the kustomization entry, naming the
// operation's own line. A patch applies to the resources of its own
// kustomization, before anything above it runs, so the failure is the same
// in every overlay that builds on it: the message does not name the
// target, and a shared base's broken patch is reported once.
func (f jsonOpFailure) problem() manifest.Problem {
	p := *kustProblem(f.entry, "%s: JSON patch operation %d at %s cannot be applied: %s",
		f.entryPath, f.index, manifest.FormatLocation(f.op), f.reason)
	p.Related = []manifest.Location{f.op}
	p.Key = fmt.Sprintf("jsonop:%s:%d", f.entryPath, f.index)
	return p
}
