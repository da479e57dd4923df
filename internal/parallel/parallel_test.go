package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index is visited exactly once, whatever the number of workers.
func TestForEachVisitsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 2, 5, 1000} {
			seen := make([]atomic.Int32, n)
			ForEach(workers, n, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("workers %d, n %d: index %d visited %d times", workers, n, i, c)
				}
			}
		}
	}
}
