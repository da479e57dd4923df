package cache

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"regexp"
)

// The cache directory may be shared (~/.cache), restored from elsewhere
// (actions/cache), or hold what its user put there; plumb reads, writes
// and removes only what it can tell it wrote, and never through a symbolic
// link. Every file is reached through an os.Root of the cache directory or
// of a format directory below it (nothing leaves it, whatever a link
// says); a file is opened only when it is a regular file before and after
// the open (the same one: a link swapped in meanwhile is refused), created
// only exclusively (O_EXCL, which never follows a link), and replaced only
// by renaming a temporary file of plumb's own over it (a rename replaces
// a link, it does not follow it). A file is plumb's when its name follows
// plumb's naming scheme and it starts with plumb's magic for that kind of
// file (ownKind); a directory is a format directory only when it is a
// directory (a link named v3 is not followed), and only the formats plumb
// wrote are cleaned (formats.go), file by file.

// errNotRegular refuses a file that is not a regular file (a link, a
// directory, a device), or that changed while it was opened.
var errNotRegular = errors.New("not a regular file of the cache")

// openRegular opens name in root when it is a regular file, and checks
// that what was opened is the file that was looked at.
func openRegular(root *os.Root, name string, flag int) (*os.File, fs.FileInfo, error) {
	before, err := root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, errNotRegular
	}
	f, err := root.OpenFile(name, flag, 0)
	if err != nil {
		return nil, nil, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		_ = f.Close()
		return nil, nil, errNotRegular
	}
	return f, after, nil
}

// openDir opens name, a directory of root (not a link to one), as a root
// of its own.
func openDir(root *os.Root, name string) (*os.Root, error) {
	before, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !before.IsDir() {
		return nil, errors.New(name + " is not a directory")
	}
	sub, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	after, err := sub.Stat(".")
	if err != nil || !os.SameFile(before, after) {
		_ = sub.Close()
		return nil, errors.New(name + " changed while it was opened")
	}
	return sub, nil
}

// ownKind is a kind of file plumb writes: its names and the magic it
// starts with. empty says whether an empty file of that name is plumb's
// too (a file plumb creates before it writes it: a run that crashed in
// between leaves it empty).
type ownKind struct {
	name  *regexp.Regexp
	magic []byte
	empty bool
}

// owns reports whether name in root is a regular file of this kind.
func (k ownKind) owns(root *os.Root, name string) bool {
	if !k.name.MatchString(name) {
		return false
	}
	f, _, err := openRegular(root, name, os.O_RDONLY)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(k.magic))
	n, err := io.ReadFull(f, head)
	switch {
	case err == nil:
		return bytes.Equal(head, k.magic)
	case n == 0 && errors.Is(err, io.EOF):
		return k.empty
	}
	return false
}

// remove removes name from root when it is a file of this kind; true when
// it is gone.
func (k ownKind) remove(root *os.Root, name string) bool {
	if !k.owns(root, name) {
		return false
	}
	err := root.Remove(name)
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

// tempName is a new name for a temporary file (tempFile matches it).
func tempName() string {
	var r [8]byte
	_, _ = rand.Read(r[:])
	return tempPrefix + hex.EncodeToString(r[:])
}

// writeReplacing writes data to name in root: to a temporary file created
// exclusively, then renamed over name, so that a reader sees the whole
// file or none and a link at name is replaced, never followed.
func writeReplacing(root *os.Root, name string, data []byte) error {
	tmp := tempName()
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}
