package reference

import (
	"io/fs"
	"path"
	"sync"

	"go.yaml.in/yaml/v3"
)

// CheckRemediation returns the remediation of a check of the embedded
// catalog, by id. It is the only help text plumb trusts as Markdown: the
// Markdown sinks show any other (a repository's catalog, a report read
// back) as a safe subset, and a finding's help is plumb's own only when it
// is this very text for its check, whoever carried it there (the cache, a
// shard's JSON report, a fork's artifact).
func CheckRemediation(id string) (string, bool) {
	r, ok := remediations()[id]
	return r, ok
}

var remediations = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	files, _ := fs.Glob(Checks, "checks/*.yaml")
	for _, f := range files {
		data, err := Checks.ReadFile(f)
		if err != nil {
			continue
		}
		var c struct {
			ID          string `yaml:"id"`
			Remediation string `yaml:"remediation"`
		}
		if yaml.Unmarshal(data, &c) == nil && c.ID != "" && c.ID+".yaml" == path.Base(f) {
			out[c.ID] = c.Remediation
		}
	}
	return out
})
