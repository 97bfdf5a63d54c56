package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
)

// Issue 24 (many-ops-200k, many-python-200k): one distinct op name, or one
// distinct Python frame, per kernel. Every analysis held a record per
// distinct name (roofline's row accumulators and finished rows, its model
// memo, the overlap analysis' sources twice over): 200 k of them took the
// wasm CLI to 1.1–1.4 GB, over the sweep's 1 GiB cap; the module's linear
// memory keeps its high-water mark. The module also could not finish a
// collection inside one long loop (it never preempts): garbage made
// meanwhile was kept as live. Measured here on an instance of its own at a
// size that runs in seconds: 330 MiB (ops) and 204 MiB (python) before,
// 57 and 52 MiB after.
func TestHostileDistinctNamesMemory(t *testing.T) {
	const n = 50000
	const bound = 128 << 20
	for _, c := range []struct {
		name string
		ev   func(i int) string
	}{
		{"ops", func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":"aten::op_%d","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":%d}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7,"External id":%d}}`, i, 10+i*10, i+1, 12+i*10, i+1)
		}},
		{"python", func(i int) string {
			return fmt.Sprintf(`{"ph":"X","cat":"python_function","name":"m%d.py(%d): f%d","pid":1,"tid":1,"ts":%d,"dur":8},{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":3,"args":{"External id":%d}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7,"External id":%d}}`, i, i, i, 10+i*10, 11+i*10, i+1, 12+i*10, i+1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			b.WriteString(`{"traceEvents":[`)
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(c.ev(i))
			}
			b.WriteString("]}")
			in := b.Bytes()
			mem := bothMem(t, analyzer.Options{Command: "triage"}, "t.json", func() io.Reader { return bytes.NewReader(in) })
			t.Logf("%d distinct %s, %d KB of trace: wasm memory %d MiB", n, c.name, len(in)>>10, mem>>20)
			if mem > bound {
				t.Errorf("wasm memory %d MiB for %d distinct %s, bound %d MiB", mem>>20, n, c.name, bound>>20)
			}
		})
	}
}
