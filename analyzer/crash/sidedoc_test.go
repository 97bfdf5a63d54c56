package crash

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// counter is a parser that wants nothing and counts the lines it is shown.
type counter struct{ lines, bytes int }

func (c *counter) beginFile(*Session) {}
func (c *counter) line(l *line)       { c.lines++; c.bytes += len(l.raw) }
func (c *counter) endFile()           {}
func (c *counter) gate() uint64       { return 0 }
func (c *counter) active(int) bool    { return false }
func (c *counter) stateless()         {}

func metadataDoc(t *testing.T, message string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"function_name": "sglang.custom_op.x", "execution_status": "exception",
		"exception": map[string]string{"type": "RuntimeError", "message": message}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A dump's exception message is offered to the parsers as a file's lines are:
// cut at maxLineBytes and only to the parsers that want it (every parser
// used to see the whole message: a 1 MB one took 72 s in the module, one of
// 500 k newlines every parser 500 k times).
func TestSideDocMessageBounded(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"one long line", "CUDA error: an illegal memory access was encountered " + strings.Repeat("x", 1000000), "illegal memory access"},
		{"many lines", strings.Repeat("\n", 500000) + "CUDA error: an illegal memory access was encountered", "illegal memory access"},
	} {
		c := &counter{}
		s := newSession(func(s *Session) []parser { return append(newParsers(s), c) })
		s.BeginFile("dump/metadata.json")
		s.Write(metadataDoc(t, tc.msg))
		s.EndFile()
		d := s.Diagnosis()
		if c.lines > 10 || c.bytes > maxLineBytes {
			t.Errorf("%s: a parser that wants no line was shown %d lines, %d bytes", tc.name, c.lines, c.bytes)
		}
		if !slices.Contains(d.Inputs[0].Quality, "long_lines_cut") {
			t.Errorf("%s: not flagged long_lines_cut: %v", tc.name, d.Inputs[0].Quality)
		}
		if !strings.Contains(fmt.Sprint(d.Findings), tc.want) {
			t.Errorf("%s: the exception is lost: %s", tc.name, d.JSON())
		}
	}
}

// selfList is a pickle of a list holding itself n times (two bytes per
// element: a memo reference, in batches of 1000).
func selfList(n int) []byte {
	b := []byte{0x80, 2, ']', 'q', 0}
	for i := range n {
		if i%1000 == 0 { // pickle's batches of 1000 (MARK … APPENDS)
			if i > 0 {
				b = append(b, 'e')
			}
			b = append(b, '(')
		}
		b = append(b, 'h', 0)
	}
	return append(b, 'e', '.')
}

// The decoded document is bounded in elements, not calls: a 983 KB list
// holding itself allocated 1.0-1.3 GB.
func TestPickleElementBudget(t *testing.T) {
	b := selfList(491000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := unpickle(b)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := v.([]any); !ok || len(l) != 491000 {
		t.Fatalf("decoded %T", v)
	}
	// the budget: limits.PickleElems slots of 16 B, plus the decoder's list
	if got := after.TotalAlloc - before.TotalAlloc; got > 96<<20 {
		t.Errorf("decoding %d bytes allocated %d MiB", len(b), got>>20)
	}
}

// A log over the side-document limit whose first byte is '[' (dmesg) or '{'
// is read as a log, not flagged as an unread side document (a 79 MB dmesg
// log of OOM kills said "a side document larger than the limit …: not read"
// under its evidence, exit 1); JSON over the limit still is.
func TestSideDocOverLimitOnlyJSON(t *testing.T) {
	var dmesg strings.Builder
	for i := 0; dmesg.Len() < 5<<20; i++ {
		fmt.Fprintf(&dmesg, "[%d.%06d] Out of memory: Killed process %d (python3) total-vm:1000kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0\n", 1000+i/1000, i%1000000, 100000+i)
	}
	var fr strings.Builder
	fr.WriteString(`{"version":"2.4","entries":[`)
	for i := 0; fr.Len() < 5<<20; i++ {
		fmt.Fprintf(&fr, `{"record_id":%d,"profiling_name":"nccl:all_reduce","state":"completed"},`, i)
	}
	fr.WriteString(`{"record_id":0}]}`)
	for _, tc := range []struct {
		name, doc string
		over      bool
	}{
		{"dmesg.log", dmesg.String(), false},
		{"app.log", strings.Repeat(`{"level":"error"} HIP error: an illegal memory access was encountered`+"\n", 80000), false},
		{"fr_rank0.json", fr.String(), true},
	} {
		d := diagnoseWhole(tc.name, []byte(tc.doc))
		if over := slices.Contains(d.Inputs[0].Quality, "side_document_over_limit"); over != tc.over {
			t.Errorf("%s: over %v, quality %v", tc.name, over, d.Inputs[0].Quality)
		}
	}
}
