package analyzer

import (
	"fmt"
	"strings"
	"testing"
)

// ExpectBytes plans the records of the store a folder's traces share
// (breakdown) for every file, while the first is read; commands that keep
// one store per trace (triage) size each for its own file only.
func TestExpectBytesSharedStoreOnly(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [`)
	for i := 0; b.Len() < 6<<20; i++ { // past the reader's 4 MiB before it trusts hints
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"External id": %d}},`, 10*i, i)
		fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": {"correlation": %d, "External id": %d}}`, 10*i+1, i, i)
	}
	b.WriteString(`]}`)
	data := []byte(b.String())
	const files = 4
	for _, c := range []struct {
		cmd    string
		shared bool
	}{{"breakdown", true}, {"triage", false}} {
		j, err := New(Options{Command: c.cmd})
		if err != nil {
			t.Fatal(err)
		}
		j.ExpectBytes(files * int64(len(data)))
		j.BeginFile("rank0.trace.json")
		j.FileSize(int64(len(data)))
		for p := data; len(p) > 0; {
			n := min(len(p), 1<<20)
			j.Write(p[:n])
			p = p[n:]
		}
		j.EndFile()
		st := j.store
		if !c.shared {
			st = j.stores[0]
		}
		n, capacity := len(st.CPU), cap(st.CPU)
		if n == 0 {
			t.Fatalf("%s: no CPU records", c.cmd)
		}
		if c.shared && capacity < (files-1)*n {
			t.Errorf("%s: %d CPU records in a capacity of %d: not planned for the %d files", c.cmd, n, capacity, files)
		}
		if !c.shared && float64(capacity) > 2.5*float64(n) { // doubling slack, not 4 files
			t.Errorf("%s: %d CPU records in a capacity of %d: planned for other traces' stores", c.cmd, n, capacity)
		}
	}
}
