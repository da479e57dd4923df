package kubevirt

import (
	"iter"
	"maps"
	"slices"
)

// sortedEntries iterates a map in key order, so walks are deterministic.
func sortedEntries[V any](m map[string]V) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}
