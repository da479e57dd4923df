package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// The cache, third round (issue 31, point 3): where it lives, what it
// removes, how it reads a damaged index, and what it holds.

// cacheFiles returns every regular file under dir by its path relative to
// dir, with its content.
func cacheFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cacheRepoFiles is a small repository with one kustomize target.
var cacheRepoFiles = map[string]string{
	"deploy/kustomization.yaml": "namespace: shop\nresources: [pod.yaml]\n",
	"deploy/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: nginx:latest\n" +
		"      securityContext: {privileged: true}\n",
	".gitignore": ".plumb-cache/\n",
}

// A repository's .plumb.yaml cannot put the cache outside the repository,
// into .git, through a link, or over what plumb checks: exit 2 at the
// line, nothing written there. Before, each of these was used (the cache
// written to /tmp, ../, .git/), and cache.dir: deploy left every manifest
// of deploy/ out of the check, a run with no findings. The workflow's
// --cache-dir may name any directory.
func TestRepositoryCacheDirIsConfined(t *testing.T) {
	r := gittest.New(t)
	r.Write(cacheRepoFiles)
	outside := t.TempDir()
	r.Symlink(outside, "out")
	r.Commit("repo")
	for _, c := range []struct {
		dir, want, written string
	}{
		{filepath.Join(outside, "abs"), "it is an absolute path", filepath.Join(outside, "abs")},
		{"../" + filepath.Base(r.Dir) + "-elsewhere", "it leads outside the repository", r.Dir + "-elsewhere"},
		{".git/plumb", "it leads into .git", filepath.Join(r.Dir, ".git", "plumb")},
		{"out/plumb", "it leads outside the repository through a symbolic link", filepath.Join(outside, "plumb")},
		{"deploy", "it holds files the checked-out commit tracks", filepath.Join(r.Dir, "deploy", "CACHEDIR.TAG")},
	} {
		t.Run(c.dir, func(t *testing.T) {
			writeTree(t, r.Dir, map[string]string{".plumb.yaml": "fail_on: never\ncache:\n  dir: " + c.dir + "\n"})
			run := runBounded(t, r.Dir, 0, "check", ".")
			want := "plumb: .plumb.yaml:3:8: cache.dir \"" + c.dir + "\": " + c.want
			if run.code != 2 || !strings.Contains(run.stderr, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", run.code, run.stderr, want)
			}
			if _, err := os.Lstat(c.written); err == nil {
				t.Errorf("%s was written", c.written)
			}
		})
	}
	writeTree(t, r.Dir, map[string]string{".plumb.yaml": "cache:\n  dir: .plumb-cache\n"})
	if run := runBounded(t, r.Dir, 0, "check", "."); run.code != 1 || !strings.Contains(run.stdout, "privileged") {
		t.Errorf("cache.dir .plumb-cache: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".plumb-cache", "CACHEDIR.TAG")); err != nil {
		t.Errorf("the cache inside the repository was not written: %v", err)
	}
	flagged := filepath.Join(outside, "flag-cache")
	if run := runBounded(t, r.Dir, 0, "check", ".", "--cache-dir", flagged); run.code != 1 {
		t.Errorf("--cache-dir outside: exit %d\n%s", run.code, run.stderr)
	}
	if _, err := os.Stat(filepath.Join(flagged, "CACHEDIR.TAG")); err != nil {
		t.Errorf("--cache-dir %s was not written: %v", flagged, err)
	}
	// The workflow's directory that the commit fills is not used, and what
	// it holds is checked.
	run := runBounded(t, r.Dir, 0, "check", ".", "--cache-dir", "deploy")
	if run.code != 1 || !strings.Contains(run.stdout, "privileged") || !strings.Contains(run.stderr, "holds files the checked-out commit tracks") {
		t.Errorf("--cache-dir deploy: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
}

// Links in the cache directory, under every name plumb writes or removes,
// pointing at a directory of someone else's files, and files and
// directories plumb did not write, are left alone by runs that write and
// evict: nothing is written through a link, nothing is removed but
// plumb's own files. Before, CACHEDIR.TAG was written through a dangling
// link, the packs into a directory a v2 link pointed at, a user's
// notes.idx there was removed as an index without its pack, and a user's
// directory v7 removed whole.
func TestCacheLeavesLinksAndOthersFilesAlone(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, cacheRepoFiles)
	victim := t.TempDir()
	writeTree(t, victim, map[string]string{"notes.idx": "PLUMBI3\nprecious\n", "0000000000000001-0000000000000002.pack": "precious\n"})
	old := time.Now().Add(-72 * time.Hour)
	for _, format := range []string{"v2", "v3"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			link := func(target, name string) {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
			}
			link(filepath.Join(victim, "tag"), "CACHEDIR.TAG")
			link(victim, format) // the format directory a link
			link(filepath.Join(victim, "notes.idx"), "v1")
			foreign := map[string]string{
				"v7/data":         "PLUMBC2\nmine\n",
				"notes.idx":       "mine\n",
				"v2x/a.pack":      "mine\n",
				"README":          "mine\n",
				"v1-backup/entry": "PLUMBC1\n",
			}
			writeTree(t, dir, foreign)
			for name := range foreign {
				_ = os.Chtimes(filepath.Join(dir, name), old, old)
				_ = os.Chtimes(filepath.Dir(filepath.Join(dir, name)), old, old)
			}
			for i := range 3 {
				writeTree(t, repo, map[string]string{"deploy/pod.yaml": strings.Replace(cacheRepoFiles["deploy/pod.yaml"], "name: p", "name: p"+string(rune('a'+i)), 1)})
				run := runBounded(t, repo, 0, "check", ".", "--cache-dir", dir, "--cache-max-size", "1")
				if run.code != 1 {
					t.Fatalf("exit %d\n%s", run.code, run.stderr)
				}
			}
			got := cacheFiles(t, victim)
			if len(got) != 2 || string(got["notes.idx"]) != "PLUMBI3\nprecious\n" || string(got["0000000000000001-0000000000000002.pack"]) != "precious\n" {
				t.Errorf("the directory links point at now holds %q", got)
			}
			for name, content := range foreign {
				if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != content {
					t.Errorf("%s: %q, %v; want it untouched", name, data, err)
				}
			}
			if st, err := os.Lstat(filepath.Join(dir, "CACHEDIR.TAG")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("CACHEDIR.TAG: %v, want the link left as it is", err)
			}
		})
	}
}

// indexFile is the one index under a cache directory (of whatever format).
func indexFile(t *testing.T, dir string) (path string, data []byte) {
	t.Helper()
	for name, content := range cacheFiles(t, dir) {
		if strings.HasSuffix(name, ".idx") {
			if path != "" {
				t.Fatalf("two indexes: %s and %s", path, name)
			}
			path, data = filepath.Join(dir, name), content
		}
	}
	if path == "" {
		t.Fatal("no index in the cache")
	}
	return path, data
}

// A pack index whose counts, offsets or lengths are absurd is a damaged
// entry: the run gives the report a run without a cache gives, within
// bounded time and memory. Before, a count whose size wraps to the file's
// (2^60 + n entries) was a panic (makeslice: len out of range), and a
// length of 5 GiB an allocation of 5 GiB (out of memory under the 3 GiB
// cap).
func TestAbsurdCacheIndexIsAMiss(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, cacheRepoFiles)
	args := []string{"check", ".", "--reproducible", "--format", "json"}
	want := runBounded(t, repo, 0, append(args, "--no-cache")...)
	table := crc32.MakeTable(crc32.Castagnoli)
	const entrySize = 80 // two keys, offset and length
	for _, c := range []struct {
		name  string
		patch func(count uint64, entries []byte) (uint64, []byte)
	}{
		{"a count that wraps", func(count uint64, e []byte) (uint64, []byte) { return count + 1<<60, e }},
		{"a count of 2^62", func(_ uint64, e []byte) (uint64, []byte) { return 1 << 62, e }},
		{"a length of 5 GiB", func(n uint64, e []byte) (uint64, []byte) { return n, setLength(e, 5<<30) }},
		{"a length of 2^62", func(n uint64, e []byte) (uint64, []byte) { return n, setLength(e, 1<<62) }},
		{"a negative length", func(n uint64, e []byte) (uint64, []byte) { return n, setLength(e, 1<<63) }},
		{"an offset past the end", func(n uint64, e []byte) (uint64, []byte) {
			binary.LittleEndian.PutUint64(e[64:], 1<<40)
			return n, e
		}},
		{"overlapping entries", func(n uint64, e []byte) (uint64, []byte) {
			dup := append(append([]byte(nil), e[:entrySize]...), e...)
			binary.LittleEndian.PutUint64(dup[64:], binary.LittleEndian.Uint64(dup[64:])+1)
			return n + 1, dup
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cacheDir := t.TempDir()
			runBounded(t, repo, 0, append(args, "--cache-dir", cacheDir)...)
			path, data := indexFile(t, cacheDir)
			body := data[8 : len(data)-4]
			count, w := binary.Uvarint(body)
			if w <= 0 || uint64(len(body)-w) != count*entrySize {
				t.Fatalf("an index of %d bytes does not read as %d entries", len(data), count)
			}
			count, entries := c.patch(count, append([]byte(nil), body[w:]...))
			out := binary.AppendUvarint(append([]byte(nil), data[:8]...), count)
			out = append(out, entries...)
			out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, table))
			if err := os.WriteFile(path, out, 0o600); err != nil {
				t.Fatal(err)
			}
			got := runBounded(t, repo, 256<<20, append(args, "--cache-dir", cacheDir)...)
			if got.code != want.code || got.stdout != want.stdout {
				t.Errorf("exit %d, stderr:\n%.2000s\nwant exit %d and the report of a run without a cache", got.code, got.stderr, want.code)
			}
		})
	}
}

// setLength sets the length of an index's first entry.
func setLength(entries []byte, n uint64) []byte {
	binary.LittleEndian.PutUint64(entries[72:], n)
	return entries
}

// cacheSecretsPlanted are the values fixtures/cache-secrets plants, and
// the --set value the runs give its chart.
var cacheSecretsPlanted = []string{
	"PLANTED-STRINGDATA-1", "PLANTED-DATA-2", "PLANTED-GEN-LITERAL-3", "PLANTED-GEN-FILE-4",
	"PLANTED-SOPS-DECRYPTED-5", "PLANTED-REPLACEMENT-6", "PLANTED-DBPASSWORD-7", "PLANTED-HELM-SET-8",
}

// A restored cache reveals no secret value: after cold and warm runs, a
// pull request's run against its base branch's cache, plumb render and
// plumb fix --dry-run over fixtures/cache-secrets, no planted value is in
// any byte of the cache directory, as written, base64-encoded or
// JSON-escaped; and the warm run's reports are the cold run's, byte for
// byte. Before, the generated Secret's literal, file and env file values
// (base64), the value a replacement copied into a ConfigMap and the
// DB_PASSWORD variable were in the pack as the builds had them.
func TestCacheHoldsNoSecretValues(t *testing.T) {
	r := gittest.New(t)
	if err := os.CopyFS(r.Dir, os.DirFS("../../fixtures/cache-secrets")); err != nil {
		t.Fatal(err)
	}
	r.Commit("secrets")
	base := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	cacheDir := t.TempDir()
	reports := t.TempDir()
	check := func(name string, extra ...string) boundedRun {
		args := append([]string{"check", ".", "--reproducible", "--set", "password=PLANTED-HELM-SET-8",
			"--format", "json=" + filepath.Join(reports, name+".json"), "--format", "sarif=" + filepath.Join(reports, name+".sarif"),
			"--format", "text"}, extra...)
		return runBounded(t, r.Dir, 0, args...)
	}
	none := check("none", "--no-cache")
	cold := check("cold", "--cache-dir", cacheDir)
	warm := check("warm", "--cache-dir", cacheDir)
	if cold.code != 1 || warm.code != cold.code || warm.stdout != cold.stdout || cold.stdout != none.stdout {
		t.Errorf("exits %d, %d, %d; the text reports differ: want one report, with and without the cache", none.code, cold.code, warm.code)
	}
	for _, ext := range []string{".json", ".sarif"} {
		n, _ := os.ReadFile(filepath.Join(reports, "none"+ext))
		c, _ := os.ReadFile(filepath.Join(reports, "cold"+ext))
		w, _ := os.ReadFile(filepath.Join(reports, "warm"+ext))
		if len(n) == 0 || !bytes.Equal(c, n) || !bytes.Equal(w, n) {
			t.Errorf("the %s reports differ with the cache, cold or warm", ext)
		}
	}
	// A pull request changing the chart's and the overlay's files.
	writeTree(t, r.Dir, map[string]string{
		"kust/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:\n  copied: placeholder\n  mode: slow\n",
		"chart/values.yaml": "password: changeme\nreplicas: 2\n",
	})
	r.Commit("change")
	check("pr", "--cache-dir", cacheDir, "--base-ref", base)
	runBounded(t, r.Dir, 0, "render", ".", "--cache-dir", cacheDir, "--set", "password=PLANTED-HELM-SET-8")
	runBounded(t, r.Dir, 0, "fix", ".", "--dry-run", "--cache-dir", cacheDir)
	files := cacheFiles(t, cacheDir)
	if len(files) < 3 {
		t.Fatalf("the cache holds %d files, want packs, indexes and CACHEDIR.TAG", len(files))
	}
	for name, data := range files {
		if found := derivedLeaks(string(data), cacheSecretsPlanted); len(found) > 0 {
			t.Errorf("%s holds %q", name, found)
		}
	}
}
