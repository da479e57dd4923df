package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-26T08:24:03Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  string
	}{
		{"release build (GoReleaser stamps all three)", "1.2.3", "fedcba9876543210fedcba9876543210fedcba98", "2026-11-20T10:00:00Z", vcs,
			"plumb 1.2.3 (commit fedcba9876543210fedcba9876543210fedcba98, 2026-11-20T10:00:00Z, "},
		{"go install …@v1.2.3", "dev", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			"plumb 1.2.3 (" + runtime.Version()},
		{"build from a clone with changes", "dev", "", "", vcs,
			"plumb dev (commit 0123456789abcdef0123456789abcdef01234567 with local changes, 2026-11-26T08:24:03Z, "},
		{"no build information", "dev", "", "", nil, "plumb dev (" + runtime.Version()},
	} {
		got := versionLine(describeBuild(c.version, c.commit, c.date, c.info))
		if !strings.HasPrefix(got, c.want) || !strings.HasSuffix(got, runtime.GOOS+"/"+runtime.GOARCH+")") {
			t.Errorf("%s: %q, want it to start with %q", c.name, got, c.want)
		}
	}
}

// TestStampedVariablesExist checks that every -X the release (and the
// Dockerfile) passes the linker names a package-level string variable: the
// linker silently ignores one that does not, and `plumb version` would
// quietly lose what it reports.
func TestStampedVariablesExist(t *testing.T) {
	flags := regexp.MustCompile(`-X ([\w./-]+)\.(\w+)=`)
	for _, file := range []string{"../../.goreleaser.yaml", "../../Dockerfile"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		found := flags.FindAllStringSubmatch(string(data), -1)
		if file == "../../.goreleaser.yaml" && len(found) != 3 {
			t.Errorf("%s stamps %d variables, want version, commit and date", file, len(found))
		}
		for _, m := range found {
			dir := "."
			if m[1] != "main" {
				dir = filepath.Join("../..", strings.TrimPrefix(m[1], "github.com/plumb-ci/plumb/"))
			}
			if !declaresStringVar(t, dir, m[2]) {
				t.Errorf("%s: -X %s.%s names no package-level variable", file, m[1], m[2])
			}
		}
	}
}

func declaresStringVar(t *testing.T, dir, name string) bool {
	t.Helper()
	fset := token.NewFileSet()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}
