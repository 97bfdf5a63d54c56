package main

import (
	"fmt"
	"syscall"
)

// maxRSS formats a child's peak resident set (Linux: ru_maxrss in KiB).
func maxRSS(u any) string {
	if r, ok := u.(*syscall.Rusage); ok {
		return fmt.Sprintf("%.0f MiB", float64(r.Maxrss)/1024)
	}
	return "–"
}
