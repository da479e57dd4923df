package rules

import (
	"io"

	"github.com/plumb-ci/plumb/internal/jsonstream"
)

// StreamJSON writes the section as json.MarshalIndent does, one rule,
// document or object at a time (the section of a large repository is tens
// of megabytes).
func (s *Section) StreamJSON(w io.Writer, prefix, indent string) error {
	return jsonstream.WriteObject(w, prefix, indent, []jsonstream.Field{
		{Key: "rules", Value: s.Rules, Stream: true},
		{Key: "documents", Value: s.Documents, Stream: true},
		{Key: "objects", Value: s.Objects, Stream: true},
	})
}
