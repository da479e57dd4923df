package gitrev

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errNoRef means a name is not a ref of the repository.
var errNoRef = errors.New("no such ref")

// plainRefName reports whether name is a plain ref name or object id that
// resolveName understands; revision expressions (main~1, HEAD^, @{u},
// tag^{}) and unusual names are left to git.
func plainRefName(name string) bool {
	if name == "" || name[0] == '-' || name[0] == '/' || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".lock") {
		return false
	}
	if strings.ContainsAny(name, "~^:?*[\\ @{}") || strings.Contains(name, "..") || strings.Contains(name, "//") {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part[0] == '.' {
			return false
		}
	}
	return true
}

// resolveName resolves a plain ref name or a (possibly abbreviated) object
// id the way git rev-parse does: a full id as is, then the refs name,
// refs/name, refs/tags/name, refs/heads/name, refs/remotes/name and
// refs/remotes/name/HEAD, then an unambiguous abbreviated id.
func (r *gitRepo) resolveName(name string) (oid, error) {
	if id, err := parseOID(name); err == nil {
		return id, nil
	}
	if r.reftable {
		return oid{}, errNoRef
	}
	for _, pattern := range []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"} {
		ref := fmt.Sprintf(pattern, name)
		if pattern == "%s" && name != "HEAD" && !strings.HasPrefix(name, "refs/") && !strings.HasSuffix(name, "_HEAD") {
			continue // only HEAD-like names live at the top of the git directory
		}
		id, err := r.readRef(ref, 0)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, errNoRef) {
			return oid{}, err
		}
	}
	if isHex(name) && len(name) >= 4 {
		return r.store.findPrefix(name)
	}
	return oid{}, errNoRef
}

// readRef reads one ref, following symbolic refs.
func (r *gitRepo) readRef(ref string, depth int) (oid, error) {
	if depth > 5 {
		return oid{}, fmt.Errorf("%s: too many levels of symbolic refs", ref)
	}
	if data, ok := r.readRefFile(ref); ok {
		if target, sym := bytes.CutPrefix(data, []byte("ref:")); sym {
			return r.readRef(string(bytes.TrimSpace(target)), depth+1)
		}
		return parseOID(string(data))
	}
	return r.packedRef(ref)
}

// packedRef looks a ref up in packed-refs ("<id> <ref>" lines).
func (r *gitRepo) packedRef(ref string) (oid, error) {
	f, err := os.Open(filepath.Join(r.commonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return oid{}, errNoRef
	}
	if err != nil {
		return oid{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(line, " ")
		if ok && name == ref {
			return parseOID(id)
		}
	}
	if err := sc.Err(); err != nil {
		return oid{}, err
	}
	return oid{}, errNoRef
}

// peelToCommit follows annotated tags to the commit they name.
func (r *gitRepo) peelToCommit(id oid) (oid, error) {
	for range 10 {
		typ, data, err := r.store.read(id, maxTreeBytes)
		if err != nil {
			return oid{}, err
		}
		switch typ {
		case objCommit:
			return id, nil
		case objTag:
			target, ok := header(data, "object")
			if !ok {
				return oid{}, fmt.Errorf("tag %s names no object", id)
			}
			if id, err = parseOID(target); err != nil {
				return oid{}, fmt.Errorf("tag %s: %w", id, err)
			}
		default:
			return oid{}, fmt.Errorf("%s is a %s, not a commit", id, typ)
		}
	}
	return oid{}, fmt.Errorf("%s: too many levels of tags", id)
}

// header returns the value of a "key value" line in the header of a commit
// or tag object.
func header(data []byte, key string) (string, bool) {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if len(line) == 0 {
			break // the end of the header
		}
		if k, v, ok := bytes.Cut(line, []byte(" ")); ok && string(k) == key {
			return string(v), true
		}
		data = rest
	}
	return "", false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
