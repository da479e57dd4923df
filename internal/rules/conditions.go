package rules

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
)

// condCall is one evaluation of a condition operator with resolved
// arguments (in the operator's parameter order).
type condCall struct {
	op   string
	args []any
	// lists holds list arguments passed unboxed (nil entries otherwise).
	lists [][]any
}

// shown returns the arguments with unboxed lists in place, for --explain.
func (c *condCall) shown() []any {
	if len(c.lists) == 0 {
		return c.args
	}
	out := append([]any(nil), c.args...)
	for i, l := range c.lists {
		if l != nil {
			out[i] = l
		}
	}
	return out
}

func (c *condCall) list(i int, name string) ([]any, error) {
	if i < len(c.lists) && c.lists[i] != nil {
		return c.lists[i], nil
	}
	l, ok := c.args[i].([]any)
	if !ok {
		return nil, fmt.Errorf("expected a list for %q, got %s %s", name, typeName(c.args[i]), quoteValue(c.args[i]))
	}
	return l, nil
}

func (c *condCall) flag(i int, name string) (bool, error) {
	b, ok := c.args[i].(bool)
	if !ok {
		return false, fmt.Errorf("expected true or false for %q, got %s", name, quoteValue(c.args[i]))
	}
	return b, nil
}

// chain evaluates eq, lt and gt: every adjacent pair must satisfy ok.
// Fewer than two values are trivially true (Ironic). With force_strings
// every value is compared as its text (so lt and gt are lexicographic).
func chain(c *condCall, ok func(a, b any, strings bool) (bool, error)) (bool, error) {
	values, err := c.list(0, "values")
	if err != nil {
		return false, err
	}
	force, err := c.flag(1, "force_strings")
	if err != nil {
		return false, err
	}
	if force {
		strs := make([]any, len(values))
		for i, v := range values {
			strs[i] = text(v)
		}
		values = strs
	}
	for i := 0; i+1 < len(values); i++ {
		good, err := ok(values[i], values[i+1], force)
		if err != nil || !good {
			return false, err
		}
	}
	return true, nil
}

func evalEq(c *condCall) (bool, error) {
	return chain(c, func(a, b any, _ bool) (bool, error) { return equal(a, b), nil })
}

func evalLt(c *condCall) (bool, error) {
	return chain(c, func(a, b any, lexical bool) (bool, error) {
		o, err := order(a, b, lexical)
		return o < 0, err
	})
}

func evalGt(c *condCall) (bool, error) {
	return chain(c, func(a, b any, lexical bool) (bool, error) {
		o, err := order(a, b, lexical)
		return o > 0, err
	})
}

func evalIsEmpty(c *condCall) (bool, error) { return isEmpty(c.args[0]), nil }

func evalIsNone(c *condCall) (bool, error) { return c.args[0] == nil, nil }

// evalIsTrue: booleans, non-zero numbers and the strings yes/true in any
// case; everything else (null, lists, mappings, "1") is not true.
func evalIsTrue(c *condCall) (bool, error) {
	switch t := c.args[0].(type) {
	case bool:
		return t, nil
	case string:
		s := strings.ToLower(t)
		return s == "yes" || s == "true", nil
	}
	if n, ok := asNumber(c.args[0], false); ok {
		return n.float() != 0, nil
	}
	return false, nil
}

// evalIsFalse: false, zero, null and the strings no/false in any case. A
// value can be neither true nor false (the spec says so on purpose).
func evalIsFalse(c *condCall) (bool, error) {
	switch t := c.args[0].(type) {
	case bool:
		return !t, nil
	case nil:
		return true, nil
	case string:
		s := strings.ToLower(t)
		return s == "no" || s == "false", nil
	}
	if n, ok := asNumber(c.args[0], false); ok {
		return n.float() == 0, nil
	}
	return false, nil
}

func evalInNet(c *condCall) (bool, error) {
	subnet, ok := c.args[1].(string)
	if !ok {
		return false, fmt.Errorf("invalid value for subnet: expected a string, got %s", typeName(c.args[1]))
	}
	prefix, err := netip.ParsePrefix(strings.TrimSpace(subnet))
	if err != nil {
		return false, fmt.Errorf("invalid value for subnet %q: not a CIDR network", subnet)
	}
	address, ok := c.args[0].(string)
	if !ok {
		return false, fmt.Errorf("invalid value for address: expected a string, got %s", typeName(c.args[0]))
	}
	addr, err := netip.ParseAddr(strings.TrimSpace(address))
	if err != nil {
		return false, fmt.Errorf("invalid value for address %q: not an IP address", address)
	}
	return prefix.Masked().Contains(addr.Unmap()), nil
}

func evalMatches(c *condCall) (bool, error) { return regexCall(c, true) }

func evalContains(c *condCall) (bool, error) { return regexCall(c, false) }

func regexCall(c *condCall, full bool) (bool, error) {
	re, err := regexArg(c.args[1], full)
	if err != nil {
		return false, err
	}
	return re.re.MatchString(text(c.args[0])), nil
}

// regexCache holds expressions that were only known at run time (a regex
// built from {item}); literal ones are compiled when the rule loads.
var regexCache sync.Map // key: "F"|"C" + pattern → *compiledRegex

func regexArg(v any, full bool) (*compiledRegex, error) {
	switch t := v.(type) {
	case *compiledRegex:
		return t, nil
	case string:
		key := "C" + t
		if full {
			key = "F" + t
		}
		if re, ok := regexCache.Load(key); ok {
			return re.(*compiledRegex), nil
		}
		re, err := compileRegex(t, full)
		if err != nil {
			return nil, err
		}
		regexCache.Store(key, re)
		return re, nil
	}
	return nil, fmt.Errorf("expected a regular expression (a string), got %s", typeName(v))
}

func evalOneOf(c *condCall) (bool, error) {
	values, err := c.list(1, "values")
	if err != nil {
		return false, err
	}
	for _, v := range values {
		if equal(c.args[0], v) {
			return true, nil
		}
	}
	return false, nil
}
