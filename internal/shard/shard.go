// Package shard splits a run's render targets into n deterministic shares,
// so that n machines can each check one share and `plumb merge` can put the
// reports back together.
package shard

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Spec is one share: Index of Count, 1-based. The zero Spec means no
// sharding (the whole run).
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Parse reads "i/n" with 1 ≤ i ≤ n.
func Parse(s string) (Spec, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	idx, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: want INDEX/COUNT, such as 2/4", s)
	}
	if count < 1 || idx < 1 || idx > count {
		return Spec{}, fmt.Errorf("shard %q: the index must be between 1 and the count (1/%d … %d/%d)", s, max(count, 1), max(count, 1), max(count, 1))
	}
	return Spec{Index: idx, Count: count}, nil
}

// Enabled reports whether the spec selects a share rather than everything.
func (s Spec) Enabled() bool { return s.Count > 0 }

// String prints i/n.
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether the render target named target belongs to this
// share. A target's share depends only on its own name (a hash of it), so
// adding or removing other targets never moves it to another machine, and a
// base and a head revision split their targets the same way.
func (s Spec) Owns(target string) bool {
	if !s.Enabled() {
		return true
	}
	return Of(target, s.Count) == s.Index
}

// Of returns the 1-based share of count that target belongs to.
func Of(target string, count int) int {
	h := fnv.New64a()
	h.Write([]byte(target))
	return int(h.Sum64()%uint64(count)) + 1
}
