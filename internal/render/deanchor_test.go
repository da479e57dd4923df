package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/testcorpus"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestKyamlDeAnchorMatchesUpstream holds plumb's patched kyaml
// (third_party/kyaml, PLUMB.md) to upstream v0.21.2: kustomize's reader
// (kio.FromBytes, which resolves anchors and merge keys with the patched
// deAnchor) gives every document exactly what upstream's deAnchor, kept
// below, gives — over every YAML file of the test data and of the shared
// corpus, and over documents written to take each path.
func TestKyamlDeAnchorMatchesUpstream(t *testing.T) {
	docs := map[string][]byte{
		"merge key":           []byte("base: &b {a: 1, b: 2}\nobj:\n  <<: *b\n  b: 3\n"),
		"merge list":          []byte("x: &x {a: 1}\ny: &y {b: 2}\nz:\n  <<: [*x, *y]\n  c: 3\n"),
		"alias":               []byte("a: &v [1, 2]\nb: *v\nc: {d: *v}\n"),
		"anchored mapping":    []byte("kind: ConfigMap\nmetadata: &m {name: x, labels: {a: b}}\ndata: {copy: y}\nother: *m\n"),
		"duplicate keys":      []byte("a: 1\nb: {c: 1, c: 2}\na: 3\n"),
		"nested duplicates":   []byte("x:\n  y:\n    k: 1\n    k: 2\n"),
		"several documents":   []byte("a: &a {x: 1}\n---\nb: {y: 2}\n---\n- {z: 3}\n"),
		"merge and duplicate": []byte("b: &b {a: 1}\nc:\n  <<: *b\n  a: 2\n  a: 3\n"),
	}
	n := 0
	check := func(name string, data []byte) {
		t.Helper()
		got, gotErr := readDocuments(data, false)
		want, wantErr := readDocuments(data, true)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: the patched reader gives\n%s(error %v)\nupstream's\n%s(error %v)", name, got, gotErr, want, wantErr)
		}
		n++
	}
	for name, data := range docs {
		check(name, data)
	}
	dirs := []string{"testdata", filepath.Join("..", "..", "fixtures")}
	testcorpus.WalkYAML(t, dirs, check)
	testcorpus.WalkYAML(t, []string{testcorpus.Dir(t)}, check)
	t.Logf("%d files read alike", n)
}

// readDocuments reads data as kustomize does (kio.FromBytes) and prints the
// documents; with upstream, anchors are resolved by upstream's deAnchor
// instead of the patched one.
func readDocuments(data []byte, upstream bool) (string, error) {
	r := &kio.ByteReader{OmitReaderAnnotations: true, AnchorsAweigh: !upstream, Reader: bytes.NewReader(data)}
	nodes, err := r.Read()
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, n := range nodes {
		if upstream {
			// RNode.DeAnchor: rn.value = deAnchor(rn.value), the value
			// being the document node (Document) when there is one.
			yn, err := upstreamDeAnchor(n.Document())
			if err != nil {
				return "", err
			}
			if yn != n.Document() {
				return "", fmt.Errorf("deAnchor replaced a whole document")
			}
		}
		s, err := n.String()
		if err != nil {
			return "", err
		}
		out.WriteString(s + "---\n")
	}
	return out.String(), nil
}

// upstreamDeAnchor is kyaml v0.21.2's deAnchor with its helpers
// (yaml/rnode.go), as upstream wrote it: every mapping goes through
// mergeAll.
func upstreamDeAnchor(yn *yaml.Node) (*yaml.Node, error) {
	if yn == nil {
		return nil, nil
	}
	if yn.Anchor != "" {
		if yn.Kind == yaml.AliasNode {
			return nil, fmt.Errorf("anchor %q defined using alias %v", yn.Anchor, yn.Alias)
		}
		yn.Anchor = ""
	}
	var err error
	switch yn.Kind {
	case yaml.ScalarNode:
		return yn, nil
	case yaml.AliasNode:
		result, err := upstreamDeAnchor(yn.Alias)
		if err != nil {
			return nil, err
		}
		return yaml.CopyYNode(result), nil
	case yaml.MappingNode:
		toMerge, err := upstreamRemoveMergeTags(yn)
		if err != nil {
			return nil, err
		}
		if err := upstreamMergeAll(yn, toMerge); err != nil {
			return nil, err
		}
		fallthrough
	case yaml.DocumentNode, yaml.SequenceNode:
		for i := range yn.Content {
			if yn.Content[i], err = upstreamDeAnchor(yn.Content[i]); err != nil {
				return nil, err
			}
		}
		return yn, nil
	default:
		return nil, fmt.Errorf("cannot deAnchor kind %d", yn.Kind)
	}
}

func upstreamMergeAll(yn *yaml.Node, toMerge []*yaml.Node) error {
	rn := yaml.NewRNode(yn).Copy()
	toMerge = append(toMerge, yn)
	for i := range toMerge {
		err := yaml.NewRNode(toMerge[i]).Copy().VisitFields(func(node *yaml.MapNode) error {
			return rn.PipeE(yaml.MapEntrySetter{Key: node.Key, Value: node.Value})
		})
		if err != nil {
			return err
		}
	}
	*yn = *rn.YNode()
	return nil
}

func upstreamRemoveMergeTags(yn *yaml.Node) ([]*yaml.Node, error) {
	if yn == nil || yn.Content == nil || yn.Kind != yaml.MappingNode {
		return nil, nil
	}
	var value *yaml.Node
	for i := 0; i+1 < len(yn.Content); i += 2 {
		if yn.Content[i].Tag == yaml.MergeTag {
			if value != nil {
				return nil, fmt.Errorf("duplicate merge key")
			}
			value = yn.Content[i+1]
		}
	}
	toMerge, err := upstreamMergeValues(value)
	if err != nil {
		return nil, err
	}
	if err := yaml.NewRNode(yn).PipeE(yaml.Clear("<<")); err != nil {
		return nil, err
	}
	return toMerge, nil
}

func upstreamMergeValues(yn *yaml.Node) ([]*yaml.Node, error) {
	if yn == nil {
		return []*yaml.Node{}, nil
	}
	switch yn.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{yn}, nil
	case yaml.AliasNode:
		if yn.Alias != nil && yn.Alias.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("invalid map merge: received alias for a non-map value")
		}
		return []*yaml.Node{yn.Alias}, nil
	case yaml.SequenceNode:
		values := []*yaml.Node{}
		for _, c := range yn.Content {
			if c.Kind == yaml.SequenceNode {
				return nil, fmt.Errorf("invalid map merge: received a nested sequence")
			}
			more, err := upstreamMergeValues(c)
			if err != nil {
				return nil, err
			}
			values = append(more, values...)
		}
		return values, nil
	default:
		return nil, fmt.Errorf("map merge requires map or sequence of maps as the value")
	}
}
