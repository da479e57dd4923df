package cache

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
)

// Identity names the plumb build that runs: its version, its source
// revision, the version of every module it was built with, and the
// executable itself (size and modification time, which tell two local
// builds of one revision apart). Entries are only read by the build that
// wrote them, so a new plumb, or a new kustomize inside it, never takes an
// entry made by another.
func Identity(version string) string {
	identityOnce.Do(func() { identity = computeIdentity() })
	return version + "\x00" + identity
}

var (
	identityOnce sync.Once
	identity     string
)

func computeIdentity() string {
	h := NewHasher("identity").String(runtime.Version()).String(runtime.GOOS).String(runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.String(bi.Main.Path).String(bi.Main.Version).String(bi.Main.Sum)
		for _, d := range bi.Deps {
			h.String(d.Path).String(d.Version).String(d.Sum)
			if d.Replace != nil {
				h.String(d.Replace.Path).String(d.Replace.Version).String(d.Replace.Sum)
			}
		}
		for _, s := range bi.Settings {
			h.String(s.Key).String(s.Value)
		}
	}
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			h.String(strconv.FormatInt(st.Size(), 10)).String(strconv.FormatInt(st.ModTime().UnixNano(), 10))
		}
	}
	return h.Sum().String()
}
