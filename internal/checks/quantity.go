package checks

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// quantitySuffixes are Kubernetes' binary and decimal SI suffixes.
var quantitySuffixes = map[string]*big.Rat{
	"Ki": ratPow(2, 10), "Mi": ratPow(2, 20), "Gi": ratPow(2, 30), "Ti": ratPow(2, 40), "Pi": ratPow(2, 50), "Ei": ratPow(2, 60),
	"n": big.NewRat(1, 1_000_000_000), "u": big.NewRat(1, 1_000_000), "m": big.NewRat(1, 1000), "": big.NewRat(1, 1),
	"k": ratPow(10, 3), "M": ratPow(10, 6), "G": ratPow(10, 9), "T": ratPow(10, 12), "P": ratPow(10, 15), "E": ratPow(10, 18),
}

func ratPow(base, exp int64) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(exp), nil))
}

// parseQuantity parses a Kubernetes quantity ("500m", "1.5Gi", "2e3") into
// an exact rational number of base units.
func parseQuantity(s string) (*big.Rat, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty quantity")
	}
	// The number: optional sign, digits, optional fraction.
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	start := i
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, suffix := s[:i], s[i:]
	if i == start || strings.Count(num, ".") > 1 || num[start:] == "." {
		return nil, fmt.Errorf("%q is not a quantity (a number with an optional suffix such as m, Ki, Mi, Gi, k, M, G)", orig)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, fmt.Errorf("%q is not a quantity", orig)
	}
	if mult, ok := quantitySuffixes[suffix]; ok {
		return r.Mul(r, mult), nil
	}
	if suffix[0] == 'e' || suffix[0] == 'E' {
		exp, err := strconv.Atoi(suffix[1:])
		if err != nil || exp > 64 || exp < -64 {
			return nil, fmt.Errorf("%q has a bad exponent", orig)
		}
		if exp >= 0 {
			return r.Mul(r, ratPow(10, int64(exp))), nil
		}
		return r.Quo(r, ratPow(10, int64(-exp))), nil
	}
	return nil, fmt.Errorf("%q has an unknown suffix %q (want m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent)", orig, suffix)
}

var (
	quantityCache     sync.Map // string → int64 or float64
	quantityCacheSize atomic.Int64
)

const maxCachedQuantities = 1 << 16

// quantityValue converts a quantity (string or number) to a number of base
// units: an int64 when whole and in range, a float64 otherwise.
func quantityValue(v any) (any, error) {
	switch t := v.(type) {
	case int64:
		return t, nil
	case float64:
		return normalizeNumber(t), nil
	case string:
		// Manifests repeat a handful of quantities ("100m", "128Mi").
		if q, ok := quantityCache.Load(t); ok {
			return q, nil
		}
		r, err := parseQuantity(t)
		if err != nil {
			return nil, err
		}
		var q any
		if r.IsInt() && r.Num().IsInt64() {
			q = r.Num().Int64()
		} else {
			f, _ := r.Float64()
			if math.IsInf(f, 0) {
				return nil, fmt.Errorf("%q is out of the range of a number", t)
			}
			q = f
		}
		if quantityCacheSize.Add(1) <= maxCachedQuantities {
			quantityCache.Store(t, q)
		}
		return q, nil
	}
	return nil, fmt.Errorf("%v is a %T, not a quantity", v, v)
}

// normalizeNumber turns a whole float into an int64, as Wanda's protobuf
// mapping does with whole-number facts.
func normalizeNumber(f float64) any {
	if f == math.Trunc(f) && !math.IsInf(f, 0) && math.Abs(f) < 1<<63 {
		return int64(f)
	}
	return f
}
