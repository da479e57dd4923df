package gitrev

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// errNoRef means a name is neither a ref nor an object id of the repository.
var errNoRef = errors.New("no such ref")

// resolveCommit turns a revision — a commit id (full or abbreviated), a
// branch, tag or remote-tracking name, optionally followed by ~N, ^N, ^{}
// or ^{commit} — into a commit id whose objects the repository has, or
// explains how to fetch it.
func resolveCommit(repo *gitRepo, ref string) (oid, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n\r") {
		return oid{}, fmt.Errorf("base revision %q: not a revision name", ref)
	}
	name, steps, err := parseRevision(ref)
	if err != nil {
		return oid{}, fmt.Errorf("base revision %q: %w; give a commit id, a branch or tag name, or one followed by ~N or ^N", ref, err)
	}
	id, err := repo.resolveName(name)
	if errors.Is(err, errNoRef) {
		return oid{}, missingRevision(repo, ref)
	}
	if err != nil {
		return oid{}, fmt.Errorf("base revision %q: %w", ref, err)
	}
	for _, parent := range append([]int{0}, steps...) {
		if id, err = repo.commitParent(id, parent); err != nil {
			if errors.Is(err, errMissing) {
				return oid{}, missingRevision(repo, ref)
			}
			return oid{}, fmt.Errorf("base revision %q: %w", ref, err)
		}
	}
	return id, nil
}

// parseRevision splits a revision into its name and the parents to walk:
// ~N is N first parents, ^N the Nth parent (^ the first, ^0 the commit
// itself), ^{} and ^{commit} peel to the commit. Anything else — reflog
// and upstream expressions (@{1}, @{u}), paths (main:dir), ranges, ^{/text},
// ^{tree} — is refused rather than resolved to another commit than git
// would.
func parseRevision(ref string) (string, []int, error) {
	name, rest := ref, ""
	if i := strings.IndexAny(ref, "~^"); i >= 0 {
		name, rest = ref[:i], ref[i:]
	}
	switch {
	case name == "@":
		name = "HEAD"
	case name == "" || strings.Contains(name, "@{"):
		return "", nil, errors.New("reflog and upstream expressions (@{N}, @{u}) are not supported")
	case strings.ContainsAny(name, ": ") || strings.Contains(name, ".."):
		return "", nil, errors.New("paths and ranges are not revisions")
	}
	var steps []int
	for rest != "" {
		op := rest[0]
		rest = rest[1:]
		if op == '^' && strings.HasPrefix(rest, "{") {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return "", nil, errors.New("unterminated ^{")
			}
			if inner := rest[1:end]; inner != "" && inner != "commit" {
				return "", nil, fmt.Errorf("^{%s} is not supported", inner)
			}
			rest = rest[end+1:]
			continue
		}
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		n := 1
		if digits > 0 {
			var err error
			if n, err = strconv.Atoi(rest[:digits]); err != nil || n > 10000 {
				return "", nil, fmt.Errorf("%c%s is out of range", op, rest[:digits])
			}
		}
		rest = rest[digits:]
		switch op {
		case '~':
			for range n {
				steps = append(steps, 1)
			}
		case '^':
			steps = append(steps, n)
		default:
			return "", nil, fmt.Errorf("%q is not a revision operator", op)
		}
	}
	return name, steps, nil
}

// refRules are the places git rev-parse looks a name up, in order.
var refRules = []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"}

// resolveName resolves a ref name or a (possibly abbreviated) object id the
// way git rev-parse does: a full id as is, then the refs name, refs/name,
// refs/tags/name, refs/heads/name, refs/remotes/name and
// refs/remotes/name/HEAD, then an unambiguous abbreviated id.
func (r *gitRepo) resolveName(name string) (oid, error) {
	if id, err := parseOID(name); err == nil {
		return id, nil
	}
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	for _, rule := range refRules {
		ref := fmt.Sprintf(rule, name)
		if rule == "%s" && name != "HEAD" && !strings.HasPrefix(name, "refs/") && !strings.HasSuffix(name, "_HEAD") {
			continue // only HEAD-like names live at the top of the git directory
		}
		found, err := storer.ResolveReference(r.storage, plumbing.ReferenceName(ref))
		if err == nil {
			return oid(found.Hash()), nil
		}
		if !errors.Is(err, plumbing.ErrReferenceNotFound) {
			return oid{}, fmt.Errorf("reading ref %s: %w", ref, err)
		}
	}
	if abbrevSHA.MatchString(name) || (len(name) >= 4 && isHex(name)) {
		return r.findPrefix(name)
	}
	return oid{}, errNoRef
}

// findPrefix resolves an abbreviated object id, which must be unambiguous.
// The caller holds the store's lock.
func (r *gitRepo) findPrefix(prefix string) (oid, error) {
	even, _ := hex.DecodeString(prefix[:len(prefix)&^1])
	hashes, err := r.storage.HashesWithPrefix(even)
	if err != nil {
		return oid{}, err
	}
	var found []oid
	for _, h := range hashes {
		if strings.HasPrefix(h.String(), prefix) {
			found = append(found, oid(h))
		}
	}
	switch len(found) {
	case 0:
		return oid{}, errNoRef
	case 1:
		return found[0], nil
	}
	return oid{}, fmt.Errorf("the abbreviated id %s is ambiguous: give more digits", prefix)
}

// commitParent peels id to a commit (through annotated tags) and returns
// its nth parent, or the commit itself for n = 0.
func (r *gitRepo) commitParent(id oid, n int) (oid, error) {
	for range 10 {
		typ, data, err := r.store.read(id, maxTreeBytes)
		if err != nil {
			return oid{}, err
		}
		switch typ {
		case plumbing.CommitObject:
			if n == 0 {
				return id, nil
			}
			parents := headers(data, "parent")
			if n > len(parents) {
				return oid{}, fmt.Errorf("commit %s has %d parent(s), not %d", id, len(parents), n)
			}
			return parseOID(parents[n-1])
		case plumbing.TagObject:
			target, ok := header(data, "object")
			if !ok {
				return oid{}, fmt.Errorf("tag %s names no object", id)
			}
			if id, err = parseOID(target); err != nil {
				return oid{}, err
			}
		default:
			return oid{}, fmt.Errorf("%s is a %s, not a commit", id, typ)
		}
	}
	return oid{}, fmt.Errorf("%s: tags nested too deep", id)
}

// headers returns the values of every "key value" line in the header of a
// commit or tag object.
func headers(data []byte, key string) []string {
	var out []string
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if len(line) == 0 {
			break // the end of the header
		}
		if k, v, ok := bytes.Cut(line, []byte(" ")); ok && string(k) == key {
			out = append(out, string(v))
		}
		data = rest
	}
	return out
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// missingRevision builds the message for a revision the clone does not have:
// it names the fetch command that brings exactly that revision in.
func missingRevision(repo *gitRepo, ref string) error {
	fetch := "git fetch --no-tags --depth=1 origin " + fetchSpec(ref)
	if repo.shallow() {
		return fmt.Errorf("base revision %q is not in this clone, which is shallow (actions/checkout fetches a single commit by default). "+
			"Fetch the base before running plumb: %s — or check out with fetch-depth: 0", ref, fetch)
	}
	return fmt.Errorf("base revision %q is not in this repository (no such commit, branch or tag). "+
		"If it exists on the remote, fetch it first: %s", ref, fetch)
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
var abbrevSHA = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// fetchSpec is what to fetch so that ref resolves afterwards.
func fetchSpec(ref string) string {
	switch {
	case fullSHA.MatchString(ref):
		return ref
	case strings.HasPrefix(ref, "origin/"):
		b := strings.TrimPrefix(ref, "origin/")
		return "+refs/heads/" + b + ":refs/remotes/origin/" + b
	case strings.HasPrefix(ref, "refs/"):
		return "+" + ref + ":" + ref
	case abbrevSHA.MatchString(ref):
		return "<full commit id of " + ref + ">"
	default:
		return "+refs/heads/" + ref + ":refs/remotes/origin/" + ref + " (then use --base-ref origin/" + ref + ")"
	}
}
