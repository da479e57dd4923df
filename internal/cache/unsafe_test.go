package cache

import "unsafe"

// unsafeData is the address of a string's bytes.
func unsafeData(s string) *byte { return unsafe.StringData(s) }
