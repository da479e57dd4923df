package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The platforms the release builds (.goreleaser.yaml: linux, darwin and
// windows on amd64 and arm64) and the archive each one ships in.
var releaseArchives = map[string]string{
	"linux/amd64":   "plumb_linux_amd64.tar.gz",
	"linux/arm64":   "plumb_linux_arm64.tar.gz",
	"darwin/amd64":  "plumb_darwin_amd64.tar.gz",
	"darwin/arm64":  "plumb_darwin_arm64.tar.gz",
	"windows/amd64": "plumb_windows_amd64.zip",
	"windows/arm64": "plumb_windows_arm64.zip",
}

type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string
	Metadata   struct{ Name string }
	Spec       struct {
		Version          string
		Homepage         string
		ShortDescription string `yaml:"shortDescription"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			}
			URI    string
			Sha256 string
			Bin    string
		}
	}
}

// TestKrewManifestCoversEveryReleaseArchive renders the repository's
// .krew.yaml as the release workflow does and checks that krew would find
// one archive per released platform, with its checksum and binary.
func TestKrewManifestCoversEveryReleaseArchive(t *testing.T) {
	tmpl, err := os.ReadFile("../../../.krew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	var sumsFile strings.Builder
	for platform, archive := range releaseArchives {
		sums[archive] = fmt.Sprintf("%064x", len(platform)*7919+len(archive))
		fmt.Fprintf(&sumsFile, "%s  %s\n", sums[archive], archive)
	}
	fmt.Fprintf(&sumsFile, "%064x  checksums.txt.sigstore.json\n", 1) // other release files are ignored
	checksums, err := readChecksums(strings.NewReader(sumsFile.String()))
	if err != nil {
		t.Fatal(err)
	}
	out, err := render(string(tmpl), "v1.2.3", checksums)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal(out, &m); err != nil {
		t.Fatalf("the rendered manifest is not YAML: %v\n%s", err, out)
	}
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "plumb" ||
		m.Spec.Version != "v1.2.3" || m.Spec.Homepage == "" || m.Spec.ShortDescription == "" {
		t.Errorf("manifest header: %+v", m)
	}
	if strings.Contains(string(out), "\n#") {
		t.Error("comment lines were kept")
	}
	var platforms []string
	for _, p := range m.Spec.Platforms {
		platform := p.Selector.MatchLabels["os"] + "/" + p.Selector.MatchLabels["arch"]
		platforms = append(platforms, platform)
		archive := releaseArchives[platform]
		if want := "https://github.com/plumb-ci/plumb/releases/download/v1.2.3/" + archive; archive == "" || p.URI != want {
			t.Errorf("%s: uri %q, want %q", platform, p.URI, want)
		}
		if p.Sha256 != sums[archive] {
			t.Errorf("%s: sha256 %q, want %q", platform, p.Sha256, sums[archive])
		}
		wantBin := "plumb"
		if p.Selector.MatchLabels["os"] == "windows" {
			wantBin = "plumb.exe"
		}
		if p.Bin != wantBin {
			t.Errorf("%s: bin %q, want %q", platform, p.Bin, wantBin)
		}
	}
	slices.Sort(platforms)
	var want []string
	for p := range releaseArchives {
		want = append(want, p)
	}
	slices.Sort(want)
	if !slices.Equal(platforms, want) {
		t.Errorf("platforms %v, want %v", platforms, want)
	}
}

// TestReleaseArchivesAreNamedAsKrewExpects ties .krew.yaml's URLs to the
// archive names .goreleaser.yaml produces.
func TestReleaseArchivesAreNamedAsKrewExpects(t *testing.T) {
	cfg, err := os.ReadFile("../../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		ProjectName string `yaml:"project_name"`
		Builds      []struct {
			Goos   []string
			Goarch []string
		}
		Archives []struct {
			NameTemplate    string `yaml:"name_template"`
			Formats         []string
			FormatOverrides []struct {
				Goos    string
				Formats []string
			} `yaml:"format_overrides"`
		}
	}
	if err := yaml.Unmarshal(cfg, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Builds) != 1 || len(g.Archives) != 1 {
		t.Fatalf("want one build and one archive, got %+v", g)
	}
	a := g.Archives[0]
	got := map[string]string{}
	for _, goos := range g.Builds[0].Goos {
		for _, goarch := range g.Builds[0].Goarch {
			name := strings.NewReplacer("{{ .ProjectName }}", g.ProjectName, "{{ .Os }}", goos, "{{ .Arch }}", goarch).Replace(a.NameTemplate)
			if regexp.MustCompile(`{{`).MatchString(name) {
				t.Fatalf("name_template %q uses more than the project, OS and architecture", a.NameTemplate)
			}
			format := a.Formats[0]
			for _, o := range a.FormatOverrides {
				if o.Goos == goos {
					format = o.Formats[0]
				}
			}
			got[goos+"/"+goarch] = name + "." + format
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(releaseArchives) {
		t.Errorf(".goreleaser.yaml makes %v, .krew.yaml expects %v", got, releaseArchives)
	}
}

func TestMissingChecksumIsAnError(t *testing.T) {
	_, err := render(`{{ addURIAndSha "https://x/{{ .TagName }}/plumb_linux_amd64.tar.gz" .TagName }}`, "v1.0.0", map[string]string{})
	if err == nil || !strings.Contains(err.Error(), "lists no plumb_linux_amd64.tar.gz") {
		t.Errorf("err = %v", err)
	}
}
