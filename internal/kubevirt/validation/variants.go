package validation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// jsonString decodes a JSON string; a string without escapes is taken as it
// is, anything else goes through encoding/json (and its errors).
func jsonString(b []byte) (string, error) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 && bytes.IndexByte(b[1:len(b)-1], '"') < 0 && isPrintableASCII(b[1:len(b)-1]) {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

func isPrintableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// IntOrPath is a numeric rule argument (min, max, minLength, maxLength):
// a JSON number, or a "jsonpath::" string whose single value is the number.
type IntOrPath struct {
	Int  int64
	Path *Path
	// OutOfRange holds the number as written when it does not fit in an
	// int64 (1e100): Go's conversion, which the validator applies as
	// well, then yields an arbitrary bound (-9223372036854775808 on amd64),
	// so Lint reports it.
	OutOfRange string
}

// UnmarshalJSON accepts a number (rounded half away from zero) or a
// jsonpath:: string; any other string is an error, in the validator's words.
func (ip *IntOrPath) UnmarshalJSON(b []byte) error {
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		ip.Int, ip.Path, ip.OutOfRange = n, nil, "" // the common case, without a detour through any
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case float64:
		r := math.Round(x)
		ip.Int, ip.Path, ip.OutOfRange = int64(r), nil, ""
		if r >= math.MaxInt64 || r < math.MinInt64 {
			ip.OutOfRange = strings.TrimSpace(string(b))
		}
	case string:
		p, err := NewPath(x)
		if err != nil {
			return fmt.Errorf("cannot unmarshall IntOrPath from JSON: %w", err)
		}
		ip.Int, ip.Path, ip.OutOfRange = 0, &p, ""
	default:
		return fmt.Errorf("cannot unmarshall IntOrPath from JSON: %s is neither a number nor a jsonpath:: string", strings.TrimSpace(string(b)))
	}
	return nil
}

// Eval returns the literal, or the single value the path resolves to (on
// the VM, else on the reference VM).
func (ip *IntOrPath) Eval(vm, ref any) (int64, error) {
	return ip.eval(newResolver(vm, ref))
}

func (ip *IntOrPath) eval(rs *resolver) (int64, error) {
	if ip.Path == nil {
		return ip.Int, nil
	}
	vals, err := rs.resolve(*ip.Path)
	if err != nil {
		return 0, err
	}
	if len(vals.List) != 1 {
		return 0, fmt.Errorf("expected one value, found %d", len(vals.List))
	}
	return ToInt64(vals.List[0])
}

// String prints the literal or the path.
func (ip *IntOrPath) String() string {
	if ip.Path != nil {
		return PathPrefix + ip.Path.Expr()
	}
	return fmt.Sprint(ip.Int)
}

// StringOrPath is an item of an enum rule's values: a literal string, or a
// "jsonpath::" string whose single value, rendered as a string, is the item.
type StringOrPath struct {
	Str  string
	Path *Path
}

// UnmarshalJSON accepts strings only.
func (sp *StringOrPath) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		return err
	}
	sp.Str, sp.Path = s, nil
	if strings.HasPrefix(s, PathPrefix) {
		p, err := NewPath(s)
		if err != nil {
			return fmt.Errorf("cannot unmarshall StringOrPath from JSON: %w", err)
		}
		sp.Str, sp.Path = "", &p
	}
	return nil
}

// Eval returns the literal or the single value of the path.
func (sp *StringOrPath) Eval(vm, ref any) (string, error) {
	return sp.eval(newResolver(vm, ref))
}

func (sp *StringOrPath) eval(rs *resolver) (string, error) {
	if sp.Path == nil {
		return sp.Str, nil
	}
	vals, err := rs.resolve(*sp.Path)
	if err != nil {
		return "", err
	}
	if len(vals.List) != 1 {
		return "", fmt.Errorf("expected one value, found %d", len(vals.List))
	}
	return ToString(vals.List[0]), nil
}

// String prints the literal or the path.
func (sp *StringOrPath) String() string {
	if sp.Path != nil {
		return PathPrefix + sp.Path.Expr()
	}
	return sp.Str
}
