//go:build !unix

package httpapi

// fdLimit is unknown here.
func fdLimit() uint64 { return 0 }
