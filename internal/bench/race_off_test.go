//go:build !race

package bench_test

// raceEnabled is set when the race detector is on.
const raceEnabled = false
