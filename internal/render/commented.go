package render

import (
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// commentedEntryRE is a commented-out kustomization entry naming a file:
// "#- path: manager_webhook_patch.yaml", "#- patches/webhook_in_foos.yaml",
// "#  path: cainjection_patch.yaml". kubebuilder scaffolds such entries
// with the patch files beside them, to be uncommented when a feature
// (webhooks, cert-manager) is enabled.
var commentedEntryRE = regexp.MustCompile(`^#+\s*(?:-\s*)?(?:path:\s*)?([A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:ya?ml|json))\s*$`)

// commentedOutEntries records, as kustomize patches, the files of the
// repository that a kustomization of tree names only in a commented-out
// entry and nothing else reads: they are scaffolded patches, not objects
// (kubebuilder scaffolds them so). A file some kustomization uses keeps its role.
func (r *renderer) commentedOutEntries(tree []string, consumed map[string]bool, inputs map[string]manifest.SkipReason) {
	loaded := map[string]bool{}
	for _, f := range r.set.Files {
		loaded[f] = true
	}
	for _, dir := range tree {
		n := r.graph.node(dir)
		if n == nil || n.k.Doc == nil {
			continue
		}
		for _, name := range commentedFiles(n.k.Doc.Node) {
			f := path.Join(dir, name)
			if strings.HasPrefix(f, "../") || f == ".." || !loaded[f] || consumed[f] {
				continue
			}
			consumed[f] = true
			inputs[f] = manifest.SkipKustomizePatch
		}
	}
}

// commentedFiles returns the file names of the commented-out entries in
// the comments of a kustomization's nodes, in document order.
func commentedFiles(root *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, line := range strings.Split(c, "\n") {
				if m := commentedEntryRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
					out = append(out, path.Clean(m[1]))
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	return out
}
