package fix

// memoGeneration is how many entries a memo holds before it starts a new
// generation. The findings of one object come together, so what is read
// again is what was read last: a bound keeps the memory of a file of
// 20,000 documents, each parsed several times over, to a hundred or so
// documents.
const memoGeneration = 64

// memo remembers recent results by key, in two generations: a lookup
// finds an entry of the current or the previous one (and carries it
// over), and when the current one is full the previous is dropped.
type memo[K comparable, V any] struct {
	cur, prev map[K]V
}

func newMemo[K comparable, V any]() *memo[K, V] {
	return &memo[K, V]{cur: map[K]V{}}
}

func (m *memo[K, V]) get(k K) (V, bool) {
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.prev[k]
	if ok {
		m.put(k, v)
	}
	return v, ok
}

func (m *memo[K, V]) put(k K, v V) {
	if len(m.cur) >= memoGeneration {
		m.prev, m.cur = m.cur, make(map[K]V, memoGeneration)
	}
	m.cur[k] = v
}
