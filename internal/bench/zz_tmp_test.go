package bench_test

import (
	"os"
	"testing"
)

func BenchmarkZZWarmOnly(b *testing.B) {
	c := corpus(b, sizes[1].spec)
	dir := os.Getenv("ZZCACHE")
	cfg := checkConfig(b, c, "--cache-dir", dir)
	runCheck(b, cfg, c.Objects)
	b.ResetTimer()
	for b.Loop() {
		runCheck(b, cfg, c.Objects)
	}
}
