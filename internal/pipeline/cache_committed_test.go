package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// A cache directory a pull request can commit is not used: its entries
// would be trusted as what plumb rendered. A directory git does not track
// is, inside the repository or not.
func TestCommittedCacheDirectoryIsNotUsed(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"app/cm.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"planted/kustomize/ab": "not an entry plumb wrote\n",
		".gitignore":           ".plumb-cache/\n",
	})
	r.Symlink("planted", "linked")
	r.Commit("planted cache")
	if err := os.MkdirAll(filepath.Join(r.Dir, ".plumb-cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir       string
		committed bool
	}{
		{"planted", true},
		{"linked", true}, // a committed link to a committed directory
		{".plumb-cache", false},
		{"not-yet", false},
		{t.TempDir(), false},
	} {
		cfg := testConfig(t, r.Dir, nil, "--cache-dir", c.dir)
		store, warning := openCache(cfg)
		if store != nil {
			closeCache(store)
		}
		if got := store == nil && strings.Contains(warning, "holds files the checked-out commit tracks"); got != c.committed {
			t.Errorf("%s: store %v, warning %q; want refused=%v", c.dir, store != nil, warning, c.committed)
		}
	}
}
