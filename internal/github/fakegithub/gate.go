package fakegithub

import (
	"net/http"
	"regexp"
	"sync"
)

// Gate holds requests so a test can interleave two clients the way
// concurrent workflow runs interleave on GitHub: the matching requests
// wait on arrival (before GitHub acts on them) until the gate opens.
type Gate struct {
	method string
	path   *regexp.Regexp
	// left is how many more requests the gate holds; later ones pass.
	left int

	mu      sync.Mutex
	arrived int
	changed chan struct{} // closed and replaced on each arrival
	open    chan struct{}
	opened  bool
}

// Hold returns a gate that holds the next n requests matching method and
// path (a regular expression on the URL path) until Open.
func (s *Server) Hold(method, path string, n int) *Gate {
	g := &Gate{method: method, path: regexp.MustCompile(path), left: n,
		changed: make(chan struct{}), open: make(chan struct{})}
	s.gatesMu.Lock()
	s.gates = append(s.gates, g)
	s.gatesMu.Unlock()
	return g
}

// Arrived waits until n requests are held (or passed) at the gate.
func (g *Gate) Arrived(n int) {
	for {
		g.mu.Lock()
		if g.arrived >= n {
			g.mu.Unlock()
			return
		}
		ch := g.changed
		g.mu.Unlock()
		<-ch
	}
}

// Open lets the held requests, and every later one, through.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened {
		g.opened = true
		close(g.open)
	}
}

// wait holds r when a gate matches it.
func (s *Server) wait(r *http.Request) {
	s.gatesMu.Lock()
	var held *Gate
	for _, g := range s.gates {
		if g.left > 0 && g.method == r.Method && g.path.MatchString(r.URL.Path) {
			g.left--
			held = g
			break
		}
	}
	s.gatesMu.Unlock()
	if held == nil {
		return
	}
	held.mu.Lock()
	held.arrived++
	close(held.changed)
	held.changed = make(chan struct{})
	held.mu.Unlock()
	<-held.open
}
