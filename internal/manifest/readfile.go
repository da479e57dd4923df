package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// A repository controls the type of its files as much as their content: a
// named pipe (FIFO) called b.yaml blocks whoever opens it until something
// writes to the other end, forever in CI; a device may never end. Every
// file plumb reads from a repository (manifests, kustomize inputs, rules,
// catalogs, references, compare inputs, the configuration) goes through
// ReadRegular or ReadRegularFile: the file's type is read without opening
// it, and only a regular file of at most the size limit is opened.

// NotRegularError reports a file that is not a regular file.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s, not a regular file: plumb does not open it (reading it could block or never end)", DescribeMode(e.Mode))
}

// ErrLeavesRoot is a path that an os.Root refused: a symbolic link (or
// "..") leading out of the directory the file is read from.
var ErrLeavesRoot = errors.New("the path leads out of the directory it is read from (a symbolic link or \"..\")")

// rootError replaces os.Root's refusal to follow a path out of the root
// with ErrLeavesRoot, which says it in words, and ContentFS's refusal of
// a path in .git with its *GitDirError, which names the path.
func rootError(err error) error {
	var g *GitDirError
	switch {
	case errors.As(err, &g):
		return g
	case err != nil && strings.Contains(err.Error(), "path escapes from parent"):
		return ErrLeavesRoot
	}
	return err
}

// TooLargeError reports a file over the size limit.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file is %d bytes, over the %d-byte limit (raise it with --max-file-size)", e.Size, e.Limit)
}

// DescribeMode names the type of a file that is not a regular file.
func DescribeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// CheckRegular returns a *NotRegularError for a file that is not a
// regular file, a *TooLargeError for one over limit bytes (no limit when
// limit <= 0).
func CheckRegular(st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &NotRegularError{Mode: st.Mode()}
	}
	if limit > 0 && st.Size() > limit {
		return &TooLargeError{Size: st.Size(), Limit: limit}
	}
	return nil
}

// ReadRegular reads a file of fsys when it is a regular file of at most
// limit bytes (no limit when limit <= 0). Symbolic links are followed as
// fsys follows them (an os.Root refuses links out of the root).
func ReadRegular(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, rootError(err)
	}
	if err := CheckRegular(st, limit); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, rootError(err)
	}
	defer f.Close()
	return readLimited(f, limit)
}

// ReadRegularFile is ReadRegular on the operating system's file system,
// for files named on the command line or resolved from the configuration.
// A file inside a .git directory is refused (CheckRealPath): a name the
// workflow gives may still be a link the repository committed.
func ReadRegularFile(name string, limit int64) ([]byte, error) {
	if err := CheckRealPath(name); err != nil {
		return nil, err
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, limit)
}

// readLimited reads an opened file, one byte past the limit so that a
// file that grew since it was examined is still caught without reading all
// of it.
func readLimited(f fs.File, limit int64) ([]byte, error) {
	if st, err := f.Stat(); err == nil {
		if err := CheckRegular(st, limit); err != nil {
			return nil, err
		}
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &TooLargeError{Size: int64(len(data)), Limit: limit}
	}
	return data, nil
}

// IsNotRegular reports whether err is (or wraps) a *NotRegularError.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}
