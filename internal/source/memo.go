package source

import "sync"

// memo computes a value once per key for the run: concurrent callers of
// one key wait for the first and share its result, error included (a
// failed fetch is not retried within a run, so every target that needs
// it reports the same failure).
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]*memoEntry[V]
}

type memoEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

func (m *memo[V]) do(key string, compute func() (V, error)) (V, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[string]*memoEntry[V]{}
	}
	e := m.m[key]
	if e == nil {
		e = &memoEntry[V]{}
		m.m[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = compute() })
	return e.v, e.err
}
