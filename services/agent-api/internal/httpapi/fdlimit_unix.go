//go:build unix

package httpapi

import "syscall"

// fdLimit is the soft RLIMIT_NOFILE (Go raises it to the hard limit at
// start), or 0 when unknown or unlimited.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur == ^uint64(0) {
		return 0
	}
	return r.Cur
}
