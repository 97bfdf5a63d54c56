package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBenchTable puts a bench table (from its begin marker to its end
// marker's line) into BENCHMARKS.md: in place of the one it replaces, else
// after the section ending with after (when given and present), else at
// the end.
func writeBenchTable(t *testing.T, table, begin, end, after string) {
	t.Helper()
	path := filepath.Join("..", "..", "BENCHMARKS.md")
	old, _ := os.ReadFile(path)
	s := string(old)
	if i, j := strings.Index(s, begin), strings.Index(s, end); i >= 0 && j > i {
		s = s[:i] + table + s[j+len(end)+1:]
	} else if k := strings.Index(s, after); after != "" && k >= 0 {
		k += len(after) + 1
		s = s[:k] + "\n" + table + s[k:]
	} else {
		s += "\n" + table
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + table)
}

// loadAverageLine states the machine's load when a bench table was
// measured: on the shared 2-core machine it inflates wall times.
func loadAverageLine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(load))
	return "\nLoad average at the end of the run (1, 5, 15 min): " + strings.Join(f[:min(3, len(f))], ", ") +
		" (2 cores shared with other sessions: wall times are inflated by it, CPU times much less).\n"
}
