package main

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// There is no Docker engine in CI, so this test does what `docker build`
// does with the build stage: it takes the files .dockerignore lets into the
// build context, copies them as the stage's COPY lines do, and runs the
// stage's go build there. A package or embedded file the image build cannot
// see (a directory left out of .dockerignore or of the COPY lines) fails
// here instead of in the image job.
func TestDockerBuildStageBuildsFromItsContext(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root := mustGetwd(t)
	ignore := readDockerignore(t, filepath.Join(root, ".dockerignore"))
	context := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if ignore.includes(rel) {
			context[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The image ships the license and the notice of the code it copies.
	for _, f := range []string{"LICENSE", "NOTICE"} {
		if !context[f] {
			t.Errorf("%s is not in the build context: the image's COPY of it fails", f)
		}
	}

	stage := t.TempDir()
	copies := buildStageCopies(t, filepath.Join(root, "Dockerfile"))
	if len(copies) == 0 {
		t.Fatal("the Dockerfile's build stage copies nothing")
	}
	for _, c := range copies {
		n := 0
		for file := range context {
			dest, ok := c.destination(file)
			if !ok {
				continue
			}
			n++
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(stage, filepath.FromSlash(dest))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if n == 0 {
			t.Errorf("COPY %s: nothing in the build context matches (docker build fails on it)", strings.Join(c.sources, " "))
		}
	}

	cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(t.TempDir(), "plumb"), "./cmd/plumb")
	cmd.Dir = stage
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the Dockerfile's build stage would fail (.dockerignore and COPY must bring every package and embedded file):\n%s", out)
	}
}

// dockerignore is a .dockerignore file: the last pattern that matches a
// path (or one of its parent directories) decides, and "!" patterns let a
// path back in, as Docker's pattern matcher does.
type dockerignore []struct {
	pattern string
	include bool
}

func readDockerignore(t *testing.T, file string) dockerignore {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out dockerignore
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		include := strings.HasPrefix(line, "!")
		pattern := path.Clean(strings.TrimPrefix(strings.TrimPrefix(line, "!"), "/"))
		out = append(out, struct {
			pattern string
			include bool
		}{pattern, include})
	}
	return out
}

func (d dockerignore) includes(file string) bool {
	in := true
	for _, rule := range d {
		for p := file; p != "." && p != "/"; p = path.Dir(p) {
			if ok, _ := doublestar.Match(rule.pattern, p); ok {
				in = rule.include
				break
			}
		}
	}
	return in
}

// stageCopy is one COPY of the build stage: context sources into dest
// (relative to the stage's WORKDIR).
type stageCopy struct {
	sources []string
	dest    string
}

// destination says where a context file lands, if this COPY takes it.
func (c stageCopy) destination(file string) (string, bool) {
	for _, src := range c.sources {
		src = path.Clean(src)
		switch {
		case file == src && strings.HasSuffix(c.dest, "/"):
			return path.Join(c.dest, path.Base(file)), true
		case file == src:
			return path.Clean(c.dest), true
		case strings.HasPrefix(file, src+"/"):
			return path.Join(c.dest, strings.TrimPrefix(file, src+"/")), true
		}
	}
	return "", false
}

// buildStageCopies reads the COPY lines of the Dockerfile's first stage
// (the build stage), which copy from the build context.
func buildStageCopies(t *testing.T, file string) []stageCopy {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []stageCopy
	froms := 0
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			froms++
		case "COPY":
			if froms != 1 || len(fields) < 3 || strings.HasPrefix(fields[1], "--") {
				continue
			}
			out = append(out, stageCopy{sources: fields[1 : len(fields)-1], dest: fields[len(fields)-1]})
		}
	}
	return out
}
