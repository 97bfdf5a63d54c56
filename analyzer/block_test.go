package analyzer

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// shared reads (and gunzips) a file of ../shared/testdata, skipping the
// test when the shared data is not there.
func shared(t testing.TB, rel string) []byte {
	t.Helper()
	return fixture.ReadPath(t, filepath.Join("../../shared/testdata", rel))
}

type input struct {
	name string
	data []byte
}

// runSeq runs a job the way a single-reader host does, in chunks.
func runSeq(t *testing.T, o Options, in []input) []byte {
	t.Helper()
	j, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range in {
		j.BeginFile(f.name)
		j.FileSize(int64(len(f.data)))
		for p := f.data; len(p) > 0; {
			n := min(len(p), 1<<20)
			if _, err := j.Write(p[:n]); err != nil {
				break
			}
			p = p[n:]
		}
		j.EndFile()
	}
	r := j.Finish()
	return r.JSON()
}

// runBlocks runs a job the way a parallel host does: each file's start
// through the job until BlockReady, then blocks of about size bytes cut
// by cut, each read by its own BlockParser, merged in order. It reports
// how many blocks were merged, and ErrSplit when the host must restart.
// cut places the blocks' ends (the job's own part ends at trace.NextCut).
func runBlocks(t *testing.T, o Options, in []input, size int, cut func([]byte, int) int) ([]byte, int, error) {
	t.Helper()
	j, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	var p *BlockParser
	for _, f := range in {
		j.BeginFile(f.name)
		j.FileSize(int64(len(f.data)))
		pos := 0
		split, bare := false, false
		for pos < len(f.data) && !split {
			next := min(len(f.data), pos+1<<20)
			if pos >= BlockMinStart {
				if c := trace.NextCut(f.data, pos); c >= 0 && c < next {
					next = c
				}
			}
			if _, err := j.Write(f.data[pos:next]); err != nil {
				pos = len(f.data)
				break
			}
			pos = next
			split, bare = j.BlockReady()
		}
		for split && pos < len(f.data) {
			end := len(f.data)
			if c := cut(f.data, pos+size); c >= 0 {
				end = c
			}
			// Every other block reuses the parser's memory.
			if p == nil || blocks%2 == 0 {
				if p, err = NewBlockParser(o, int64(pos), bare); err != nil {
					t.Fatal(err)
				}
			} else {
				p.Reset(int64(pos), bare)
			}
			for q := f.data[pos:end]; len(q) > 0; { // chunks inside a block too
				n := min(len(q), 300<<10)
				p.Write(q[:n])
				q = q[n:]
			}
			if err := j.MergeBlock(p.AppendEncoded(nil)); err != nil {
				return nil, blocks, err
			}
			blocks++
			pos = end
		}
		j.EndFile()
	}
	r := j.Finish()
	return r.JSON(), blocks, nil
}

// sameBytes fails with the first difference of two results.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-200)
	t.Fatalf("%s: results differ at byte %d:\nblocks: …%s…\nsingle: …%s…", what, i,
		got[lo:min(len(got), i+200)], want[lo:min(len(want), i+200)])
}

// Every shared trace big enough to be split gives the same result bytes
// read in blocks as read by one reader, for several block sizes.
func TestBlocksSameResult(t *testing.T) {
	traces := []string{
		"gpu/traces/tp_rank0.trace.json.gz",
		"traces/tracelens/mi300/resnet_act_checkpoint.json.gz",
		"traces/tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz",
		"traces/tracelens/inference/sglang_decode/capture_traces/bs_32_rank0.json.gz",
		"traces/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
		"traces/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
		"gpu/perfmodel/hostbound.trace.json.gz",
		"traces/tracelens/b200/eager_trace.json.gz",
	}
	if testing.Short() {
		traces = traces[1:2]
	}
	for _, rel := range traces {
		t.Run(rel[strings.LastIndexByte(rel, '/')+1:], func(t *testing.T) {
			in := []input{{rel, shared(t, rel)}}
			o := Options{Command: "breakdown"}
			want := runSeq(t, o, in)
			for _, size := range []int{1 << 20, 7 << 20} {
				got, n, err := runBlocks(t, o, in, size, trace.NextCut)
				if err != nil {
					t.Fatalf("blocks of %d: %v", size, err)
				}
				if n < 2 {
					t.Fatalf("blocks of %d: only %d blocks merged", size, n)
				}
				sameBytes(t, fmt.Sprintf("blocks of %d (%d)", size, n), got, want)
			}
		})
	}
}

// A triage pair: one store per trace, the pair's mapping, every artifact.
func TestBlocksSameResultTriage(t *testing.T) {
	if testing.Short() {
		t.Skip("large pair")
	}
	in := []input{
		{"eager_graph_off.trace.json.gz", shared(t, "gpu/traces/eager_graph_off.trace.json.gz")},
		{"graph_on.trace.json.gz", shared(t, "gpu/traces/graph_on.trace.json.gz")},
	}
	o := Options{Command: "triage"}
	want := runSeq(t, o, in)
	got, n, err := runBlocks(t, o, in, 3<<20, trace.NextCut)
	if err != nil || n < 4 {
		t.Fatalf("%d blocks, %v", n, err)
	}
	sameBytes(t, "triage", got, want)
}

// genTrace writes a trace of n events with what a splitter can trip on:
// strings holding "},{"ph"…, escaped names, a header array of objects
// after traceEvents, events that are not objects.
func genTrace(n int, bare bool) []byte {
	var b bytes.Buffer
	if !bare {
		b.WriteString(`{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "gcnArchName": "gfx942:sramecc+:xnack-"}],` + "\n" + `"traceEvents": [`)
	} else {
		b.WriteString("[")
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		ts := 1000 + i*10
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, `  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 9, "args": {"External id": %d, "Input Dims": [[%d, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}}`, ts, i, 1+i%5)
		case 1:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 2, "args": {"External id": %d, "correlation": %d, "kernel": "k%d"}}`, ts, i-1, i, i%5)
		case 2:
			fmt.Fprintf(&b, "{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_Alik_Bljk_%d\", \"pid\": 2, \"tid\": 7, \"ts\": %d, \"dur\": 5,\n    \"args\": {\"External id\": %d, \"correlation\": %d, \"device\": 2, \"stream\": 7}\n  }", i%11, ts, i-2, i-1)
		case 3: // a name holding what a cut looks for
			fmt.Fprintf(&b, `{"ph": "X", "cat": "user_annotation", "name": "odd },{\"ph\": \"X\" \u00e9 %d", "pid": 1, "tid": 1, "ts": %d, "dur": 3}`, i%3, ts)
		case 4:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "python_function", "name": "model.py(%d): forward", "pid": 1, "tid": 1, "ts": %d, "dur": 8}`, i%13, ts)
		case 5:
			fmt.Fprintf(&b, `{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 2, "tid": 9, "ts": %d, "dur": 1, "args": {"device": 2, "stream": 9, "correlation": %d}}`, ts, i)
		case 6:
			if i%49 == 6 {
				b.WriteString(`17`) // not an object: counted, skipped
			} else {
				fmt.Fprintf(&b, `{"ph": "i", "name": "marker %d", "pid": 1, "tid": 1, "ts": %d}`, i, ts)
			}
		}
	}
	if bare {
		b.WriteString("]\n")
	} else {
		b.WriteString("\n],\n" + `"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},` + "\n" + `"traceName": "gen"}` + "\n")
	}
	return b.Bytes()
}

// Generated traces: object and bare documents, every block size down to
// tiny, and cuts that land inside strings (a wrong guess must be caught).
func TestBlocksGenerated(t *testing.T) {
	for _, bare := range []bool{false, true} {
		data := genTrace(60000, bare)
		if len(data) < 2*BlockMinStart {
			t.Fatalf("generated trace too small: %d", len(data))
		}
		in := []input{{"gen.json", data}}
		o := Options{Command: "breakdown"}
		want := runSeq(t, o, in)
		for _, size := range []int{1, 4096, 100 << 10, 1 << 20} {
			got, n, err := runBlocks(t, o, in, size, trace.NextCut)
			if err != nil {
				t.Fatalf("bare %v, blocks of %d: %v", bare, size, err)
			}
			if n < 2 {
				t.Fatalf("bare %v, blocks of %d: %d blocks", bare, size, n)
			}
			sameBytes(t, fmt.Sprintf("bare %v, blocks of %d", bare, size), got, want)
		}
		// A cut inside a string: the block after it does not follow.
		inString := func(p []byte, from int) int {
			i := bytes.Index(p[from:], []byte(`},{\"ph`))
			if i < 0 {
				return -1
			}
			return from + i + 2
		}
		if _, _, err := runBlocks(t, o, in, 1<<20, inString); !errors.Is(err, ErrSplit) {
			t.Fatalf("bare %v: a cut inside a string merged: %v", bare, err)
		}
	}
}

// What a single reader stops at, blocks refuse (the host reads again):
// a record limit reached in a block, a block that breaks off, a wrong
// base offset, a damaged encoding.
func TestBlocksRefuse(t *testing.T) {
	data := genTrace(60000, false)
	in := []input{{"gen.json", data}}
	o := Options{Command: "breakdown"}
	o.Limits.Records = 40000
	if _, _, err := runBlocks(t, o, in, 1<<20, trace.NextCut); !errors.Is(err, ErrSplit) {
		t.Fatalf("record limit: %v", err)
	}
	// A block that breaks off: a '}' where an element should start.
	at := 6<<20 + bytes.Index(data[6<<20:], []byte(",\n{\"ph\": \"X\", \"cat\": \"python_function\""))
	bad := append(append(append([]byte(nil), data[:at+2]...), '}'), data[at+2:]...)
	if _, _, err := runBlocks(t, Options{Command: "breakdown"}, []input{{"bad.json", bad}}, 1<<20, trace.NextCut); !errors.Is(err, ErrSplit) {
		t.Fatalf("broken block: %v", err)
	}

	// Damaged encodings and a wrong base leave an error, not a panic.
	j, _ := New(Options{Command: "breakdown"})
	j.BeginFile("gen.json")
	pos := 0
	for ok := false; !ok; {
		next := min(len(data), pos+1<<20)
		if pos >= BlockMinStart {
			next = trace.NextCut(data, pos)
		}
		j.Write(data[pos:next])
		pos = next
		ok, _ = j.BlockReady()
	}
	p, _ := NewBlockParser(Options{Command: "breakdown"}, int64(pos), false)
	end := trace.NextCut(data, pos+1<<20)
	p.Write(data[pos:end])
	enc := p.AppendEncoded(nil)
	for _, cut := range []int{0, 1, 10, len(enc) / 2, len(enc) - 1} {
		if err := j.MergeBlock(enc[:cut]); err == nil || errors.Is(err, ErrSplit) {
			t.Fatalf("encoding cut at %d: %v", cut, err)
		}
	}
	wrong, _ := NewBlockParser(Options{Command: "breakdown"}, int64(pos+1), false)
	wrong.Write(data[pos:end])
	if err := j.MergeBlock(wrong.AppendEncoded(nil)); err == nil {
		t.Fatal("a block at the wrong offset merged")
	}
	if err := j.MergeBlock(enc); err != nil {
		t.Fatalf("the good block after the damaged ones: %v", err)
	}
}

// NextCut finds element starts and nothing else of these.
func TestNextCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`[{"ph":"X"},{"ph":"X"}]`, 12},
		{"[{\"ph\":\"X\"} ,\n  {\"ph\":\"X\"}]", 16},
		{`[{"ph":"X"},{"name":"x"}]`, -1},
		{`[{"ph":"X"}, 3, {"ph":"X"}]`, -1},
		{`{"a":[1,{"b":2}],{"ph"`, -1},
		{`{"a":{"b":2},{"ph"`, 13},
	} {
		if got := trace.NextCut([]byte(c.in), 1); got != c.want {
			t.Errorf("NextCut(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
