package cache

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
)

// Entries are sealed (AES-256-GCM) under a key derived from what the
// entry was made from, and nothing in the directory holds that key: an
// entry's slot is stored only as a digest of it (Store.scoped), and the
// seal key is another digest of it (Store.sealKey). A run that has the
// inputs derives both; a copy of the directory without them — a cache
// restored by actions/cache in a fork's pull request, whose workflow never
// saw the secrets the base branch's run decrypted or was given — reads
// nothing of the entries but their size. What a digest reveals of its
// inputs stays: whether a guess of every one of them is right.

// nonceSize and tagSize frame a sealed value: the random nonce before the
// ciphertext, the authentication tag after it.
const (
	nonceSize = 12
	tagSize   = 16
	// SealOverhead is how many bytes sealing adds.
	SealOverhead = nonceSize + tagSize
)

func newAEAD(key Key) cipher.AEAD {
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err) // a 32-byte key is always an AES-256 key
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

// Seal appends to dst plaintext encrypted and authenticated under key,
// with aad (data that is not encrypted but must be the same when the value
// is opened) bound to it. Every call draws a random nonce, so one key may
// seal many values.
func Seal(dst []byte, key Key, plaintext, aad []byte) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, nonceSize)...)
	_, _ = rand.Read(dst[n:]) // crypto/rand.Read never fails
	return newAEAD(key).Seal(dst, dst[n:n+nonceSize], plaintext, aad)
}

// Unseal opens what Seal sealed under key with the same aad, into a buffer
// of its own; false when the value is damaged, or was sealed under another
// key or aad.
func Unseal(key Key, sealed, aad []byte) ([]byte, bool) {
	if len(sealed) < SealOverhead {
		return nil, false
	}
	out, err := newAEAD(key).Open(nil, sealed[:nonceSize], sealed[nonceSize:], aad)
	if err != nil {
		return nil, false
	}
	return out, true
}
