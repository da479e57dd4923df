package report

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeFileInRoot writes a report file inside root, whole or not at all,
// through an os.Root: every directory of the path is opened inside root,
// so a symbolic link out of it fails the write. A symbolic link at the
// report's own name is replaced, not followed (the rename replaces it).
func writeFileInRoot(root, name string, write func(io.Writer) error) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(rel), ".plumb-report-"+hex.EncodeToString(suffix[:]))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("the directory %s does not exist: create it first", filepath.Dir(name))
		case strings.Contains(err.Error(), "path escapes from parent"):
			return fmt.Errorf("the directory %s leads outside %s through a symbolic link: a report path from the repository's configuration must stay inside the repository", filepath.Dir(name), root)
		}
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(name), err)
	}
	defer r.Remove(tmp)
	if err := writeClose(f, write); err != nil {
		return err
	}
	return r.Rename(tmp, rel)
}
