package validation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ErrNoValues is the validator's error when a rule's path yields nothing
// (typically [*] over an absent or empty list).
var ErrNoValues = errors.New("no values were found")

// checker is a rule with its arguments resolved ("specialized").
type checker interface {
	// check tests the path's values; failing lists the indexes of the
	// values that break the rule.
	check(vals []reflect.Value) (satisfied bool, failing []int, err error)
	// describe is the validator's text for the last check.
	describe(satisfied bool) string
}

// specialize resolves the rule's arguments on the VM (or the reference VM).
func specialize(r *Rule, rs *resolver) (checker, error) {
	switch r.Rule {
	case TypeInteger:
		c := &intChecker{}
		var err error
		if c.min, c.minSet, err = evalBound(r.Min, rs); err != nil {
			return nil, err
		}
		if c.max, c.maxSet, err = evalBound(r.Max, rs); err != nil {
			return nil, err
		}
		return c, nil
	case TypeString:
		c := &stringChecker{}
		var err error
		if c.min, c.minSet, err = evalBound(r.MinLength, rs); err != nil {
			return nil, err
		}
		if c.max, c.maxSet, err = evalBound(r.MaxLength, rs); err != nil {
			return nil, err
		}
		return c, nil
	case TypeEnum:
		c := &enumChecker{}
		for i := range r.Values {
			s, err := r.Values[i].eval(rs)
			if err != nil {
				return nil, err
			}
			c.values = append(c.values, s)
		}
		return c, nil
	case TypeRegex:
		if r.regex == nil && r.regexErr == nil {
			r.compile()
		}
		if r.regexErr != nil {
			return nil, r.regexErr
		}
		return &regexChecker{pattern: r.Regex, re: r.regex}, nil
	}
	return nil, ErrUnrecognizedRule
}

func evalBound(ip *IntOrPath, rs *resolver) (int64, bool, error) {
	if ip == nil {
		return 0, false, nil
	}
	n, err := ip.eval(rs)
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}

func bound(n int64, set bool) string {
	if !set {
		return "N/A"
	}
	return fmt.Sprint(n)
}

type intChecker struct {
	min, max       int64
	minSet, maxSet bool
	current        []int64
}

func (c *intChecker) check(vals []reflect.Value) (bool, []int, error) {
	ints, err := AsInt64(vals)
	if err != nil {
		return false, nil, err
	}
	c.current = ints
	var failing []int
	for i, v := range ints {
		if (c.minSet && v < c.min) || (c.maxSet && v > c.max) {
			failing = append(failing, i)
		}
	}
	return len(failing) == 0, failing, nil
}

func (c *intChecker) describe(satisfied bool) string {
	if satisfied {
		return fmt.Sprintf("All values %v are in interval [%s, %s]", c.current, bound(c.min, c.minSet), bound(c.max, c.maxSet))
	}
	// The validator appends ", " after every value but the last, whether
	// or not that value broke the rule.
	var b strings.Builder
	for i, v := range c.current {
		if c.minSet && v < c.min {
			fmt.Fprintf(&b, "value %d is lower than minimum [%d]", v, c.min)
		}
		if c.maxSet && v > c.max {
			fmt.Fprintf(&b, "value %d is higher than maximum [%d]", v, c.max)
		}
		if i != len(c.current)-1 {
			b.WriteString(", ")
		}
	}
	return b.String()
}

type stringChecker struct {
	min, max       int64
	minSet, maxSet bool
}

func (c *stringChecker) check(vals []reflect.Value) (bool, []int, error) {
	var failing []int
	for i, s := range AsStrings(vals) {
		n := int64(len(s)) // bytes, as Go's len
		if (c.minSet && n < c.min) || (c.maxSet && n > c.max) {
			failing = append(failing, i)
		}
	}
	return len(failing) == 0, failing, nil
}

func (c *stringChecker) describe(satisfied bool) string {
	if satisfied {
		// "Lengts" is the validator's spelling.
		return fmt.Sprintf("Lengts of all strings are in interval [%s, %s]", bound(c.min, c.minSet), bound(c.max, c.maxSet))
	}
	return fmt.Sprintf("Lengths of some strings are not in interval [%s, %s]", bound(c.min, c.minSet), bound(c.max, c.maxSet))
}

type enumChecker struct {
	values  []string
	current []string
}

func (c *enumChecker) check(vals []reflect.Value) (bool, []int, error) {
	c.current = AsStrings(vals)
	var failing []int
	for i, s := range c.current {
		found := false
		for _, v := range c.values {
			if s == v {
				found = true
				break
			}
		}
		if !found {
			failing = append(failing, i)
		}
	}
	return len(failing) == 0, failing, nil
}

func (c *enumChecker) describe(satisfied bool) string {
	cur, vals := strings.Join(c.current, ", "), strings.Join(c.values, ", ")
	if satisfied {
		return fmt.Sprintf("All [%s] are in [%s]", cur, vals)
	}
	return fmt.Sprintf("Some of [%s] are not in [%s]", cur, vals)
}

type regexChecker struct {
	pattern string
	re      interface{ MatchString(string) bool }
	current []string
}

func (c *regexChecker) check(vals []reflect.Value) (bool, []int, error) {
	c.current = AsStrings(vals)
	var failing []int
	for i, s := range c.current {
		if !c.re.MatchString(s) {
			failing = append(failing, i)
		}
	}
	return len(failing) == 0, failing, nil
}

func (c *regexChecker) describe(satisfied bool) string {
	cur := strings.Join(c.current, ", ")
	if satisfied {
		return fmt.Sprintf("All [%s] match %s", cur, c.pattern)
	}
	return fmt.Sprintf("Some of [%s] do not match %s", cur, c.pattern)
}
