// Command krewmanifest renders the krew plugin manifest template (.krew.yaml,
// krew-release-bot's format) for a release: {{ .TagName }} is the tag, and
// {{ addURIAndSha URL .TagName }} writes the archive's URL and the sha256
// that the release's checksums file lists for it. The release workflow
// attaches the result to the GitHub release:
//
//	go run ./internal/tools/krewmanifest -tag v1.2.3 -checksums dist/checksums.txt < .krew.yaml > dist/plumb-krew.yaml
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"text/template"
)

func main() {
	tag := flag.String("tag", "", "the release tag, e.g. v1.2.3")
	sums := flag.String("checksums", "dist/checksums.txt", "the release's checksums file (sha256sum format)")
	flag.Parse()
	if *tag == "" {
		fmt.Fprintln(os.Stderr, "krewmanifest: -tag is required")
		os.Exit(2)
	}
	f, err := os.Open(*sums)
	if err != nil {
		fmt.Fprintln(os.Stderr, "krewmanifest:", err)
		os.Exit(2)
	}
	defer f.Close()
	checksums, err := readChecksums(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "krewmanifest: %s: %v\n", *sums, err)
		os.Exit(2)
	}
	tmpl, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "krewmanifest:", err)
		os.Exit(2)
	}
	out, err := render(string(tmpl), *tag, checksums)
	if err != nil {
		fmt.Fprintln(os.Stderr, "krewmanifest:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

// readChecksums reads "SHA256  FILE" lines into FILE → SHA256.
func readChecksums(r io.Reader) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 || len(fields[0]) != 64 {
			return nil, fmt.Errorf("line %d: want \"SHA256  FILE\", got %q", n, sc.Text())
		}
		sums[strings.TrimPrefix(fields[1], "*")] = fields[0]
	}
	return sums, sc.Err()
}

// render executes the template. Comment lines are left out: krew's index
// keeps manifests without them.
func render(text, tag string, checksums map[string]string) ([]byte, error) {
	var kept []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	funcs := template.FuncMap{
		// addURIAndSha is krew-release-bot's: the URL is itself a template
		// of the tag, and the result is the uri and sha256 lines of a
		// platform, indented for the place the template calls it.
		"addURIAndSha": func(urlTemplate, tag string) (string, error) {
			u, err := execute("url", urlTemplate, tag, nil)
			if err != nil {
				return "", err
			}
			sum, ok := checksums[path.Base(string(u))]
			if !ok {
				return "", fmt.Errorf("the checksums file lists no %s", path.Base(string(u)))
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", u, sum), nil
		},
	}
	return execute(".krew.yaml", strings.Join(kept, "\n"), tag, funcs)
}

func execute(name, text, tag string, funcs template.FuncMap) ([]byte, error) {
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ TagName string }{tag}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
