package tmplcheck

import (
	"fmt"
	"text/template"
)

// Some sprig functions allocate what an argument asks for: {{ until
// 100000000 }} is an 800 MB list before the first iteration, {{ indent
// 2000000000 "x" }} a 2 GB string. Capping their results (CapFuncs) comes
// too late, so BoundSizes checks the argument first.

// BoundSizes replaces the functions of m that allocate what an argument
// asks for by versions that fail before allocating more than maxList
// elements (until, untilStep, seq) or maxBytes bytes (repeat, indent,
// nindent, randAlphaNum, randAlpha, randNumeric, randAscii, randBytes).
// Functions m lacks, or has with another signature, are left alone.
func BoundSizes(m template.FuncMap, maxList, maxBytes int) {
	tooLong := func(name string, n int) error {
		return fmt.Errorf("%s %d: lists are limited to %d elements", name, n, maxList)
	}
	if until, ok := m["until"].(func(int) []int); ok {
		m["until"] = func(n int) ([]int, error) {
			if n > maxList || -n > maxList {
				return nil, tooLong("until", n)
			}
			return until(n), nil
		}
	}
	if untilStep, ok := m["untilStep"].(func(int, int, int) []int); ok {
		m["untilStep"] = func(start, stop, step int) ([]int, error) {
			if step != 0 && ((stop-start)/step > maxList || (start-stop)/step > maxList) {
				return nil, tooLong("untilStep", (stop-start)/step)
			}
			return untilStep(start, stop, step), nil
		}
	}
	if seq, ok := m["seq"].(func(...int) string); ok {
		m["seq"] = func(params ...int) (string, error) {
			if len(params) > 0 {
				lo, hi := 1, params[len(params)-1]
				if len(params) > 1 {
					lo = params[0]
				}
				if hi-lo > maxList || lo-hi > maxList {
					return "", tooLong("seq", hi-lo)
				}
			}
			return seq(params...), nil
		}
	}
	tooBig := func(name string) error {
		return fmt.Errorf("%s: the result would exceed %d bytes", name, maxBytes)
	}
	for _, name := range []string{"repeat", "indent", "nindent"} {
		if f, ok := m[name].(func(int, string) string); ok {
			m[name] = func(n int, s string) (string, error) {
				if n > 0 && int64(n)*int64(max(len(s), 1)) > int64(maxBytes) {
					return "", tooBig(name)
				}
				return f(n, s), nil
			}
		}
	}
	for _, name := range []string{"randAlphaNum", "randAlpha", "randNumeric", "randAscii"} {
		if f, ok := m[name].(func(int) string); ok {
			m[name] = func(n int) (string, error) {
				if n > maxBytes {
					return "", tooBig(name)
				}
				return f(n), nil
			}
		}
	}
	if f, ok := m["randBytes"].(func(int) (string, error)); ok {
		m["randBytes"] = func(n int) (string, error) {
			if n > maxBytes {
				return "", tooBig("randBytes")
			}
			return f(n)
		}
	}
}
