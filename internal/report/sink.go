package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/redact"
)

// Sink writes a report in one format.
type Sink interface {
	Write(w io.Writer, r *Report) error
}

// Output is one requested report: a format and a file ("" for stdout).
type Output struct {
	Format string
	File   string
	// Sink, when set, writes the format instead of its default sink (a
	// SARIF sink with a category, say).
	Sink Sink
	// Root, when set, is the directory File must be written inside
	// (WithinRoot).
	Root string
	// Text configures the text sink (--min-level, --verbose).
	Text TextOptions
}

// WithinRoot makes the file outputs given as relative paths that lie
// inside root (the repository) write there through an os.Root, without
// following a symbolic link the repository holds out of it or into .git
// (writeFileInRoot): whoever named the path — the command line, an action
// input, .plumb.yaml —, a link in the checkout is the pull request's
// choice, not theirs. An absolute path, or one leading out of root, is
// written where it says.
func WithinRoot(outs []Output, root string) {
	if root == "" {
		return
	}
	for i := range outs {
		if f := outs[i].File; f != "" && !filepath.IsAbs(f) && insideRoot(root, f) {
			outs[i].Root = root
		}
	}
}

// insideRoot reports whether a path relative to the working directory
// lies lexically inside root.
func insideRoot(root, name string) bool {
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(rootAbs, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// TextOnStdout reports whether one of the outputs is the text report
// written to stdout, where every finding is printed.
func TextOnStdout(outs []Output) bool {
	for _, o := range outs {
		if o.Format == "text" && o.File == "" && o.Sink == nil {
			return true
		}
	}
	return false
}

// sink returns the sink that writes o.
func (o Output) sink(color bool) Sink {
	if o.Sink != nil {
		return o.Sink
	}
	if o.Format == "text" {
		return Text{Color: color, TextOptions: o.Text}
	}
	return sinks[o.Format](color)
}

// WithTextOptions configures the text outputs.
func WithTextOptions(outs []Output, opts TextOptions) {
	for i := range outs {
		if outs[i].Format == "text" {
			outs[i].Text = opts
		}
	}
}

// sinks maps format names to constructors; color says whether the output is
// a terminal.
var sinks = map[string]func(color bool) Sink{
	"text":        func(color bool) Sink { return Text{Color: color} },
	"json":        func(bool) Sink { return JSON{} },
	"sarif":       func(bool) Sink { return SARIF{} },
	"markdown":    func(bool) Sink { return Markdown{} },
	"annotations": func(bool) Sink { return Annotations{} },
}

// Formats lists the supported format names.
func Formats() []string {
	names := make([]string, 0, len(sinks))
	for n := range sinks {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// WithSARIFCategory makes the SARIF outputs write category as their
// runAutomationDetails.id (code scanning keeps one set of alerts per tool
// and category, so two plumb jobs on one repository need two categories).
// An empty category leaves the default.
func WithSARIFCategory(outs []Output, category string) {
	if category == "" {
		return
	}
	for i := range outs {
		if outs[i].Format == "sarif" {
			outs[i].Sink = SARIF{Category: category}
		}
	}
}

// CheckFormat reports whether one format value (F or F=FILE) names a known
// format.
func CheckFormat(spec string) error {
	format, _, _ := strings.Cut(spec, "=")
	if _, ok := sinks[format]; !ok {
		return fmt.Errorf("unknown format (want %s)", strings.Join(Formats(), ", "))
	}
	return nil
}

// ParseOutputs reads --format values: F or F=FILE. At most one output may go
// to stdout.
func ParseOutputs(specs []string) ([]Output, error) {
	var outs []Output
	stdout := 0
	for _, s := range specs {
		format, file, _ := strings.Cut(s, "=")
		if err := CheckFormat(s); err != nil {
			return nil, fmt.Errorf("--format %q: %w", s, err)
		}
		if file == "" {
			stdout++
		}
		outs = append(outs, Output{Format: format, File: file})
	}
	if stdout > 1 {
		return nil, errors.New("--format: more than one format writes to stdout; give the others a file (F=FILE)")
	}
	return outs, nil
}

// WriteAll writes the report to every output. Files are written whole or not
// at all (through a temporary file and a rename).
func WriteAll(outs []Output, r *Report, stdout io.Writer) error {
	var errs []error
	for _, o := range outs {
		if o.File == "" {
			bw := bufio.NewWriter(stdout)
			err := o.sink(isTerminal(stdout)).Write(bw, r)
			if err == nil {
				err = bw.Flush()
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("writing the %s report: %w", o.Format, err))
			}
			continue
		}
		write := func(w io.Writer) error { return o.sink(false).Write(w, r) }
		var err error
		if o.Root != "" {
			err = writeFileInRoot(o.Root, o.File, write)
		} else {
			err = writeFile(o.File, write)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("writing the %s report to %s: %w", o.Format, o.File, err))
		}
	}
	return errors.Join(errs...)
}

func writeFile(name string, write func(io.Writer) error) error {
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
		// A device or a pipe (/dev/null, /dev/stdout, a FIFO): write to it;
		// renaming a temporary file over it would replace it.
		return writeSpecial(name, write)
	}
	tmp, err := os.CreateTemp(dirOf(name), ".plumb-report-*")
	if err != nil {
		// The temporary file's random name would only confuse: say what
		// is wrong with the directory the report goes to.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the directory %s does not exist: create it first", filepath.Dir(name))
		}
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(name), err)
	}
	defer os.Remove(tmp.Name())
	if err := writeClose(tmp, write); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func writeSpecial(name string, write func(io.Writer) error) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return writeClose(f, write)
}

func dirOf(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		return name[:i+1]
	}
	return "."
}

// isTerminal reports whether w is a terminal that wants colour (NO_COLOR,
// see no-color.org, turns it off).
func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap() // main's redact.Writer
	}
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeClose writes a report to f through a buffer and closes f; f is
// closed whatever fails.
func writeClose(f io.WriteCloser, write func(io.Writer) error) error {
	// The process's tokens never reach a report file (stdout is
	// redacted by main).
	rw := redact.Process().Writer(f)
	bw := bufio.NewWriter(rw)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := rw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
