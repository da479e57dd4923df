//go:build !unix

package main

import "os"

// maxRSSKiB is not measured on this platform.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }
