package report

import (
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/source"
)

// Fetched is a remote artifact the run used (a chart from a Helm
// repository), as the JSON report's "fetched" list, the text report's
// "fetched:" lines and the summary comment's facts name it. It is the
// fetcher's own record.
type Fetched = source.Fetched

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
