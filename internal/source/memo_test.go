package source

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// Concurrent callers of one key share one computation and its error;
// other keys compute their own.
func TestMemoComputesOncePerKey(t *testing.T) {
	var m memo[int]
	var calls atomic.Int32
	fail := errors.New("unreachable")
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := m.do("a", func() (int, error) { calls.Add(1); return 0, fail }); err != fail {
				t.Errorf("error %v, want the first call's", err)
			}
		}()
	}
	wg.Wait()
	if v, err := m.do("b", func() (int, error) { calls.Add(1); return 7, nil }); v != 7 || err != nil {
		t.Errorf("b = %d, %v", v, err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d computations, want 2 (one per key)", n)
	}
}
