package main

import (
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkVersionStartup times `plumb version` as a process, the binary
// built as the Dockerfile builds it: the cost of starting plumb at all
// (the runtime, and every package's initialisation). Target: under 20 ms.
func BenchmarkVersionStartup(b *testing.B) {
	bin := buildImageBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exec.Command(bin, "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "plumb 1.0.0-test") {
			b.Fatalf("plumb version: %v: %q", err, out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/start")
}
