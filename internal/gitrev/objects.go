package gitrev

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// oid is a SHA-1 object id.
type oid [20]byte

func (id oid) String() string { return hex.EncodeToString(id[:]) }

func parseOID(s string) (oid, error) {
	var id oid
	if len(s) != 40 {
		return id, fmt.Errorf("%q is not an object id", s)
	}
	_, err := hex.Decode(id[:], []byte(s))
	return id, err
}

// objType is a git object type.
type objType = plumbing.ObjectType

const objTree = plumbing.TreeObject

// maxTreeBytes bounds commits, tags and trees (a tree of a hundred thousand
// entries is a few megabytes).
const maxTreeBytes = 64 << 20

// errMissing is an object the repository does not have.
var errMissing = errors.New("the object is not in the repository")

// objectStore reads objects through go-git's repository storage (loose
// objects, packs and their deltas, alternates). go-git's storage is not
// safe for concurrent use, and the tree is read from several goroutines:
// reads take turns.
type objectStore struct {
	mu sync.Mutex
	s  storer.EncodedObjectStorer
	// sizer reports an object's size from its header (the pack entry, or
	// the delta's result size) without inflating it.
	sizer interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}
	closer io.Closer
}

func (s *objectStore) close() {
	if s.closer != nil {
		s.closer.Close()
	}
}

// read returns an object's type and content; objects larger than limit are
// refused without being inflated.
func (s *objectStore) read(id oid, limit int64) (objType, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := plumbing.Hash(id)
	// The size from the object's header first, so that a large file is
	// refused before it is inflated. (go-git's size lookup does not search
	// alternates; their objects are checked once read.)
	if n, err := s.sizer.EncodedObjectSize(h); err == nil && n > limit {
		return 0, nil, tooLarge(n, limit)
	}
	o, err := s.s.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, nil, objectError(id, err)
	}
	if o.Size() > limit {
		return 0, nil, tooLarge(o.Size(), limit)
	}
	r, err := o.Reader()
	if err != nil {
		return 0, nil, objectError(id, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, nil, objectError(id, err)
	}
	return o.Type(), data, nil
}

// size returns an object's size without inflating all of it.
func (s *objectStore) size(id oid) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := plumbing.Hash(id)
	if n, err := s.sizer.EncodedObjectSize(h); err == nil {
		return n, nil
	}
	o, err := s.s.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, objectError(id, err)
	}
	return o.Size(), nil
}

func objectError(id oid, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return fmt.Errorf("object %s: %w", id, errMissing)
	}
	return fmt.Errorf("object %s: %w", id, err)
}

func tooLarge(size, limit int64) error {
	return fmt.Errorf("file is %d bytes, over the %d-byte limit", size, limit)
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
