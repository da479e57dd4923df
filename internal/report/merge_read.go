package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// MaxShardReportBytes bounds a shard report plumb merge reads (256 MiB): a
// JSON report of 10,000 objects with every engine's section is a few tens
// of megabytes, and a path named by mistake (a device that never ends, a
// huge file) must not take the runner's memory.
const MaxShardReportBytes = 256 << 20

// ReadShardFile reads a shard report for plumb merge: a file, or a pipe
// (process substitution), of at most MaxShardReportBytes that starts as a
// JSON object does. A file over the size is refused before it is read,
// and a stream that does not start with "{" (/dev/zero, a binary file)
// after its first bytes.
func ReadShardFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxShardReportBytes {
		return nil, fmt.Errorf("%s: the file is %d bytes, over the %d-byte limit of a shard report: plumb merge reads the JSON reports of plumb check --shard", name, st.Size(), MaxShardReportBytes)
	}
	r := bufio.NewReader(io.LimitReader(f, MaxShardReportBytes+1))
	head, _ := r.Peek(512)
	if trimmed := bytes.TrimLeft(head, " \t\r\n"); len(trimmed) > 0 && trimmed[0] != '{' {
		return nil, fmt.Errorf("%s: not a plumb JSON report: it does not start with '{' (plumb merge reads the JSON reports of plumb check --shard)", name)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxShardReportBytes {
		return nil, fmt.Errorf("%s: the report is over the %d-byte limit of a shard report: plumb merge reads the JSON reports of plumb check --shard", name, MaxShardReportBytes)
	}
	return data, nil
}
