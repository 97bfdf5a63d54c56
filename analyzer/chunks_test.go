package analyzer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// runChunks runs a breakdown job over one file pushed in chunks of n bytes,
// stopping when the job says the file takes no more (as every host does).
func runChunks(t *testing.T, o Options, name string, data []byte, n int) []byte {
	t.Helper()
	j, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile(name)
	for p := data; len(p) > 0; {
		k := min(len(p), n)
		if _, err := j.Write(p[:k]); err != nil {
			break
		}
		p = p[k:]
	}
	j.EndFile()
	return j.Finish().JSON()
}

// A trace whose reading stops (a limit, broken JSON, data after the end)
// gives the same artifacts whatever chunks the host pushed it in: the CLI
// pushes 1 MiB, the page what DecompressionStream hands it. Its size and
// run id count the bytes up to where reading stopped.
func TestStoppedFileSameWhateverChunks(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents": [`)
	for i := 0; b.Len() < 3<<20; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d, "dur": 3, "args": {"correlation": %d}}`, i%5, 100+i*5, i)
	}
	body := b.String()
	cases := map[string]struct {
		data string
		o    Options
	}{
		"record limit":   {body + "\n]}\n", Options{Command: "breakdown", Limits: limits.Limits{Records: 20000}}},
		"event too big":  {body + `,{"ph": "X", "cat": "cpu_op", "name": "big", "ts": 1, "dur": 1, "args": {"s": "` + strings.Repeat("x", 9<<20) + `"}}` + "\n]}\n", Options{Command: "breakdown"}},
		"broken JSON":    {body + ",\n}{\"ph\": \"X\"}" + strings.Repeat(" ", 2<<20) + "]}\n", Options{Command: "breakdown"}},
		"data after end": {body + "\n]}\n" + strings.Repeat("garbage ", 300000), Options{Command: "breakdown"}},
	}
	for name, c := range cases {
		want := runChunks(t, c.o, "t.json", []byte(c.data), 1<<20)
		if !bytes.Contains(want, []byte(`"partial":true`)) {
			t.Fatalf("%s: the file did not stop: %.300s", name, want)
		}
		for _, n := range []int{64 << 10, 7001, 3 << 20} {
			if got := runChunks(t, c.o, "t.json", []byte(c.data), n); !bytes.Equal(got, want) {
				sameBytes(t, fmt.Sprintf("%s, chunks of %d vs 1 MiB", name, n), got, want)
			}
		}
	}
}
