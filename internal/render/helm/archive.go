package helm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A subchart archive (charts/NAME.tgz) is a few hundred kilobytes that
// Helm's loader decompresses in full, each archive (and each archive
// inside one) with a budget of its own of 100 MiB: ten archives of zeros
// are a gigabyte in memory for every render target of the chart. plumb
// reads each archive once, as Helm's loader will, before handing the
// chart to it: what the archives decompress to counts, with the chart's
// own files, against the one size budget of the chart (Chart.maxBytes),
// and the decompression stops as soon as it is over; each file in an
// archive is held to the file-size limit, and the YAML files Helm parses
// in it to the nesting and alias limits, as the chart directory's files
// are. A damaged archive is left to Helm's loader, which says what is
// wrong with it.

// errArchiveDone ends the reading of an archive that is over a limit.
var errArchiveDone = errors.New("over a limit")

// archiveCheck reads the archives of one chart against its size budget.
type archiveCheck struct {
	limits manifest.Limits
	// total is what the chart has read so far, decompressed; max its budget.
	total *int64
	max   int64
	// file is the repository file of the outermost archive being read,
	// and problem the first limit it broke.
	file    string
	problem *FileError
}

// subchartArchive reports whether rel (chart-relative, or relative to an
// archive's chart) is an archive Helm's loader unpacks as a subchart:
// charts/NAME.tgz of the chart or of a subchart directory under charts/,
// at any depth, where no name starts with "_" or "." (LoadFiles skips
// those).
func subchartArchive(rel string) bool {
	parts := strings.Split(rel, "/")
	if len(parts)%2 != 0 {
		return false
	}
	for i := 0; i < len(parts); i += 2 {
		name := parts[i+1]
		if parts[i] != "charts" || name == "" || strings.IndexAny(name, "_.") == 0 {
			return false
		}
		if last := i+2 == len(parts); last != (path.Ext(name) == ".tgz") {
			return false
		}
	}
	return true
}

// check reads the archive data (the repository file file) and the
// archives inside it, and returns a *FileError at file once they are over
// a limit.
func (a *archiveCheck) check(file string, data []byte) error {
	a.file, a.problem = file, nil
	if err := a.read(bytes.NewReader(data), ""); err != nil && a.problem != nil {
		return a.problem
	}
	return nil
}

// read decompresses one archive (inner: the path of it inside the
// outermost one, "" for that) as Helm's LoadArchiveFiles does, counting
// every byte against the budget.
func (a *archiveCheck) read(in io.Reader, inner string) error {
	zr, err := gzip.NewReader(in)
	if err != nil {
		return nil // Helm's loader reports it
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err != nil {
			return nil // the end, or a damaged archive Helm's loader reports
		}
		if hd.FileInfo().IsDir() || hd.Typeflag == tar.TypeXGlobalHeader || hd.Typeflag == tar.TypeXHeader {
			continue
		}
		rel := memberName(hd.Name)
		member := &counted{r: tr, a: a, name: inner + hd.Name}
		switch {
		case subchartArchive(rel):
			err = a.read(member, inner+hd.Name+"/")
			if err == nil {
				_, err = io.Copy(io.Discard, member)
			}
		case parsedAsYAML(rel):
			var b bytes.Buffer
			if _, err = io.Copy(&b, member); err == nil {
				if ps := manifest.LimitProblems(hd.Name, b.Bytes(), a.limits); len(ps) > 0 {
					err = a.fail("%s: %s", inner+manifest.FormatLocation(ps[0].Location), ps[0].Message)
				}
			}
		default:
			_, err = io.Copy(io.Discard, member)
		}
		if err != nil {
			return err
		}
	}
}

// memberName is an archive member's chart-relative name, as Helm's
// loader makes it: less the archive's top directory, with "/" for "\".
func memberName(name string) string {
	delim := "/"
	if strings.ContainsRune(name, '\\') {
		delim = "\\"
	}
	_, rest, _ := strings.Cut(name, delim)
	return path.Clean(strings.ReplaceAll(rest, delim, "/"))
}

// fail records the first limit the archive broke.
func (a *archiveCheck) fail(format string, args ...any) error {
	if a.problem == nil {
		a.problem = &FileError{At: manifest.Location{File: a.file}, Err: fmt.Sprintf(format, args...)}
	}
	return errArchiveDone
}

// counted is an archive member being read: each byte counts against the
// chart's budget, and the member against the file-size limit.
type counted struct {
	r    io.Reader
	a    *archiveCheck
	name string
	read int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	*c.a.total += int64(n)
	switch {
	case *c.a.total > c.a.max:
		return n, c.a.fail("the chart is larger than %d bytes with what its archives decompress to (the decompression was stopped in %s), "+
			"the size budget of a render target (raise it with --max-target-size or limits.max_target_size in .plumb.yaml)", c.a.max, c.name)
	case c.read > c.a.limits.MaxFileBytes:
		return n, c.a.fail("%s, a file in the archive, is over the %d-byte file-size limit (raise it with --max-file-size)", c.name, c.a.limits.MaxFileBytes)
	}
	return n, err
}
