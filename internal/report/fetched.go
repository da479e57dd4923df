package report

import (
	"fmt"
	"slices"
	"strings"
)

// Fetched is a remote artifact the run used (a chart from a Helm
// repository), as the JSON report's "fetched" list, the text report's
// "fetched:" lines and the summary comment's facts name it.
type Fetched struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository string `json:"repository"`
	URL        string `json:"url"`
	Digest     string `json:"digest"`
	// Cached: read from the cache, not fetched by this run.
	Cached bool `json:"cached"`
}

// String is "podinfo 6.5.0 from https://…, sha256:…".
func (f Fetched) String() string {
	s := fmt.Sprintf("%s %s from %s, %s", f.Name, f.Version, f.Repository, f.Digest)
	if f.Cached {
		s += " (from the cache)"
	}
	return s
}

// mergeFetched is the union of the shards' lists, by URL and digest.
func mergeFetched(lists ...[]Fetched) []Fetched {
	var out []Fetched
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.SortFunc(out, func(a, b Fetched) int {
		if c := strings.Compare(a.URL, b.URL); c != 0 {
			return c
		}
		return strings.Compare(a.Digest, b.Digest)
	})
	return slices.CompactFunc(out, func(a, b Fetched) bool { return a.URL == b.URL && a.Digest == b.Digest })
}

// fetchedLines are the text report's lines about what was fetched.
func fetchedLines(fetched []Fetched) string {
	var b strings.Builder
	for _, f := range fetched {
		b.WriteString("fetched: " + singleLine(f.String()) + "\n")
	}
	return b.String()
}
