// Package sections reads an engine's section of a report back into its
// type, whether the run made it or it came back from a JSON report (plumb
// merge, the action reading a shard's report).
package sections

import (
	"encoding/json"
	"fmt"
)

// Read returns the section named name held in v: the value a run made
// (*T or T) or raw JSON. It returns nil, nil when v is nil.
func Read[T any](name string, v any) (*T, error) {
	switch s := v.(type) {
	case nil:
		return nil, nil
	case *T:
		return s, nil
	case T:
		return &s, nil
	case json.RawMessage:
		return Decode[T](name, s)
	case []byte:
		return Decode[T](name, s)
	}
	return nil, fmt.Errorf("the %s section has an unexpected type %T", name, v)
}

// Decode parses the JSON of the section named name.
func Decode[T any](name string, b []byte) (*T, error) {
	var s T
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading the %s section: %w", name, err)
	}
	return &s, nil
}
