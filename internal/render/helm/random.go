package helm

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// seededRandom replaces sprig's random functions with ones seeded by the
// render target's name. `helm template` prints new random names on every
// run (podinfo's test hooks are named with randAlphaNum); plumb's reports
// must be byte-identical run after run, so the same target always gets the
// same "random" values. A deliberate divergence, documented in
// docs/rendering.md.
func seededRandom(seed string) map[string]any {
	h := fnv.New64a()
	h.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x706c756d62))
	pick := func(n int, alphabet string) string {
		if n < 0 {
			n = 0
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const (
		lower  = "abcdefghijklmnopqrstuvwxyz"
		upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		digits = "0123456789"
	)
	ascii := make([]byte, 0, 95)
	for c := byte(32); c < 127; c++ {
		ascii = append(ascii, c)
	}
	return map[string]any{
		"randAlphaNum": func(n int) string { return pick(n, lower+upper+digits) },
		"randAlpha":    func(n int) string { return pick(n, lower+upper) },
		"randNumeric":  func(n int) string { return pick(n, digits) },
		"randAscii":    func(n int) string { return pick(n, string(ascii)) },
		"randInt": func(lo, hi int) int {
			if hi <= lo {
				return lo
			}
			return lo + rng.IntN(hi-lo)
		},
		"randBytes": func(n int) (string, error) {
			if n < 0 {
				return "", fmt.Errorf("randBytes: negative count %d", n)
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return base64.StdEncoding.EncodeToString(b), nil
		},
		"uuidv4": func() string {
			var b [16]byte
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			b[6] = b[6]&0x0f | 0x40
			b[8] = b[8]&0x3f | 0x80
			return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
		},
	}
}
