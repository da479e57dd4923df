package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// Key names a slot or a variant: a SHA-256 digest.
type Key [sha256.Size]byte

// String is the key in hex.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Hasher derives a key from typed parts; every part is length-prefixed, so
// ("ab", "c") and ("a", "bc") differ.
type Hasher struct {
	buf []byte
}

// NewHasher starts a key with a purpose ("render/kustomize", ...).
func NewHasher(purpose string) *Hasher {
	h := &Hasher{}
	return h.String(purpose)
}

// String adds a string.
func (h *Hasher) String(s string) *Hasher {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
	return h
}

// Bytes adds a byte slice.
func (h *Hasher) Bytes(b []byte) *Hasher {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(b)))
	h.buf = append(h.buf, b...)
	return h
}

// Int adds an integer.
func (h *Hasher) Int(n int) *Hasher {
	h.buf = binary.AppendVarint(h.buf, int64(n))
	return h
}

// Key adds another key.
func (h *Hasher) Key(k Key) *Hasher { return h.Bytes(k[:]) }

// Bool adds a boolean.
func (h *Hasher) Bool(b bool) *Hasher {
	if b {
		return h.String("1")
	}
	return h.String("0")
}

// Sum is the key of everything added.
func (h *Hasher) Sum() Key { return sha256.Sum256(h.buf) }

// Digest is the SHA-256 of data.
func Digest(data []byte) Key { return sha256.Sum256(data) }
