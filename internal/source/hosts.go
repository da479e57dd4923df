// Package source fetches what a repository names but does not hold: Helm
// charts from chart repositories (index.yaml, then the archive). Fetching
// is off unless the workflow or the base revision's .plumb.yaml allows the
// host (Hosts); every connection is checked at dial time against the
// address the name resolved to, so that a name cannot point plumb at the
// runner's loopback, link-local (cloud metadata), private or multicast
// addresses unless an allowed host names that address or name itself;
// every artifact is checked against the digest its index gives, bounded in
// size and time, and stored in the persistent cache by URL and digest, so
// that a rerun, a pull request's base revision and --offline read the same
// bytes.
package source

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// Hosts is the allow-list of hosts plumb may fetch from: "host" (any
// port) or "host:port", or every host ("*", --allow-remote).
type Hosts struct {
	all   bool
	names map[string]bool
	// written keeps the entries as given, for messages.
	written []string
}

// AllHosts allows every host (--allow-remote, remote.hosts: ["*"]).
func AllHosts() Hosts { return Hosts{all: true, written: []string{"*"}} }

// ParseHosts reads an allow-list: host names or addresses, each with an
// optional port ("charts.jetstack.io", "127.0.0.1:8080", "[::1]:5000"),
// "*" for every host. A URL or a path is refused: the entry is a host.
func ParseHosts(list []string) (Hosts, error) {
	h := Hosts{names: map[string]bool{}}
	for _, e := range list {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e == "*":
			h.all = true
		case strings.ContainsAny(e, "/?#@ "):
			return Hosts{}, fmt.Errorf("remote host %q: want a host name or address with an optional port (e.g. ghcr.io or 127.0.0.1:8080), not a URL", e)
		default:
			host, port, err := splitHost(e)
			if err != nil {
				return Hosts{}, fmt.Errorf("remote host %q: %w", e, err)
			}
			h.names[joinHost(host, port)] = true
		}
		h.written = append(h.written, e)
	}
	return h, nil
}

// Merge is the union of two allow-lists.
func (h Hosts) Merge(o Hosts) Hosts {
	out := Hosts{all: h.all || o.all, names: map[string]bool{}}
	for _, x := range []Hosts{h, o} {
		for n := range x.names {
			out.names[n] = true
		}
		for _, w := range x.written {
			if !slices.Contains(out.written, w) {
				out.written = append(out.written, w)
			}
		}
	}
	return out
}

// Empty reports whether no host is allowed.
func (h Hosts) Empty() bool { return !h.all && len(h.names) == 0 }

// String names the list, for messages ("none" when empty).
func (h Hosts) String() string {
	if len(h.written) == 0 {
		return "none"
	}
	return strings.Join(h.written, ", ")
}

// Allows reports whether a connection to host on port may be made.
func (h Hosts) Allows(host, port string) bool {
	return h.all || h.named(host, port)
}

// named reports whether the list names host (with port or without) itself,
// not through "*": only such a host may be a loopback or private address.
func (h Hosts) named(host, port string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return h.names[joinHost(host, "")] || h.names[joinHost(host, port)]
}

// splitHost reads "host" or "host:port" (brackets around an IPv6 address).
func splitHost(e string) (host, port string, err error) {
	if strings.HasPrefix(e, "[") || strings.Count(e, ":") == 1 {
		if host, port, err = net.SplitHostPort(e); err != nil {
			return "", "", err
		}
	} else {
		host = e
	}
	if host == "" {
		return "", "", fmt.Errorf("no host name")
	}
	return strings.ToLower(strings.TrimSuffix(host, ".")), port, nil
}

func joinHost(host, port string) string {
	if port == "" {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

// special says why an address may be reached only when named: "" for a
// public unicast address.
func special(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "a link-local address (where cloud metadata services answer)"
	case a.IsPrivate():
		return "a private address"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "a multicast address"
	case a.IsUnspecified():
		return "the unspecified address"
	case cgnat.Contains(a):
		return "a shared (carrier-grade NAT) address"
	}
	return ""
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")
