package shard

import (
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	for _, s := range []string{"1/1", "2/4", " 4/4 "} {
		if _, err := Parse(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "1", "0/2", "3/2", "a/b", "1/0", "-1/2", "1/2/3"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	if sp, _ := Parse("2/4"); sp != (Spec{2, 4}) || sp.String() != "2/4" {
		t.Errorf("parsed %v", sp)
	}
}

func TestSharesPartitionTheTargetsStably(t *testing.T) {
	var targets []string
	for i := 0; i < 1000; i++ {
		targets = append(targets, fmt.Sprintf("overlays/cluster-%03d", i))
	}
	const n = 4
	owner := map[string]int{}
	counts := make([]int, n+1)
	for _, tg := range targets {
		owners := 0
		for i := 1; i <= n; i++ {
			if (Spec{i, n}).Owns(tg) {
				owners++
				owner[tg] = i
				counts[i]++
			}
		}
		if owners != 1 {
			t.Fatalf("%s is owned by %d shares", tg, owners)
		}
	}
	for i := 1; i <= n; i++ {
		// A fair hash puts about 250 targets in each share.
		if counts[i] < 200 || counts[i] > 300 {
			t.Errorf("share %d has %d of 1000 targets", i, counts[i])
		}
	}
	// The share of a target is a function of its name alone.
	for _, tg := range targets[:50] {
		if Of(tg, n) != owner[tg] {
			t.Errorf("%s moved", tg)
		}
	}
	if !(Spec{}).Owns("anything") {
		t.Error("the zero spec must own every target")
	}
}
