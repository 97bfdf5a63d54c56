package trace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"github.com/gputriage/gputriage/internal/fixture"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const shared = "../../../shared/testdata"

func read(t testing.TB, data []byte, chunks func(int) int) (*Store, *File) {
	t.Helper()
	st := NewStore()
	r := st.NewReader("t.json")
	for i := 0; i < len(data); {
		n := min(chunks(i), len(data)-i)
		r.Write(data[i : i+n])
		i += n
	}
	return st, r.Close()
}

func whole(int) int { return 1 << 30 }

// digest summarises a store so that two reads can be compared.
func digest(st *Store) string {
	var b strings.Builder
	for _, o := range st.GPU {
		fmt.Fprintf(&b, "G %d %d %q %q %d %d %d %d %d\n", o.TS, o.Dur, st.Name(o.Name), st.Name(o.Track), o.Device, o.Stream, o.Corr, o.Ext, o.Kind)
	}
	for _, set := range [][]Span{st.CPU, st.Python, st.Annot} {
		for _, s := range set {
			fmt.Fprintf(&b, "S %d %d %q %q %d %d %d\n", s.TS, s.Dur, st.Name(s.Name), st.Name(s.Track), s.Corr, s.Ext, s.Kind)
		}
	}
	for _, x := range st.Shapes {
		fmt.Fprintf(&b, "A %d %q %q %q %d\n", x.CPU, st.Name(x.Dims), st.Name(x.Types), st.Name(x.Concrete), x.Flops)
	}
	return b.String()
}

const sample = `{"schemaVersion":1,"traceEvents":[
 {"ph":"X","cat":"kernel","name":"Cijk_Alik_MT64_ISA942","pid":9,"tid":2,"ts":1712195495527376.234,"dur":12.5,"args":{"device":9,"stream":2,"correlation":7,"kind":"Dispatch Task"}},
 {"name":"void f<\"x\">(int*)\u00e9","ph":"X","cat":"Kernel","pid":"0","tid":"stream 7","ts":10,"dur":-3,"args":{"External id":"42","correlation":8}},
 {"ph":"X","cat":"cuda_runtime","name":"hipGraphLaunch","pid":1,"tid":1,"ts":9,"dur":2,"args":{"correlation":7,"cid":1}},
 {"ph":"X","cat":"python_function","name":"C:\path\q.py(1): f","pid":1,"tid":1,"ts":1,"dur":20,"args":{"Python id":1,"Python parent id":null}},
 {"ph":"f","cat":"ac2g","id":7,"pid":9,"tid":2,"ts":1,"bp":"e"},
 {},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":9,"tid":2,"ts":30,"dur":1.0001,"args":{"bytes":4}}
],"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X"}]}`

func TestReaderFields(t *testing.T) {
	st, f := read(t, []byte(sample), whole)
	// The negative dur is kept as 0, counted and flagged.
	if !f.Complete || !f.Partial() || f.Problem != "1 events with a negative dur (counted as 0)" {
		t.Fatalf("complete=%v partial=%v problem=%q", f.Complete, f.Partial(), f.Problem)
	}
	if len(st.GPU) != 3 || len(st.CPU) != 1 || len(st.Python) != 1 {
		t.Fatalf("got %d gpu %d cpu %d python", len(st.GPU), len(st.CPU), len(st.Python))
	}
	k := st.GPU[0]
	if k.TS != 1712195495527376234 || k.Dur != 12500 || k.Corr != 7 || k.Ext != None || k.Device != 9 || k.Stream != 2 || k.Kind != KindKernel {
		t.Errorf("kernel 0: %+v", k)
	}
	k = st.GPU[1]
	if st.Name(k.Name) != `void f<"x">(int*)é` || k.Dur != 0 || f.NegDur != 1 || k.Ext != 42 || k.Stream != 7 || k.Device != 0 {
		t.Errorf("legacy kernel: %+v name %q negdur %d", k, st.Name(k.Name), f.NegDur)
	}
	if got := st.Name(st.Python[0].Name); got != `C:\path\q.py(1): f` {
		t.Errorf("unknown escapes must stay literal, got %q", got)
	}
	if st.GPU[2].Dur != 1000 || st.GPU[2].Kind != KindMemcpy {
		t.Errorf("memcpy: %+v", st.GPU[2])
	}
	if string(f.Header["deviceProperties"]) != `[{"id":0,"name":"AMD Instinct MI300X"}]` {
		t.Errorf("header after events: %q", f.Header["deviceProperties"])
	}
}

// cpu_ops keep their record_shapes arguments (raw JSON) and with_flops
// estimate; other categories and ops without them keep nothing.
func TestShapes(t *testing.T) {
	doc := `{"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":1,"dur":1,"args":{"External id":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":2,"dur":5,"args":{"External id":2,"Input Dims": [[64, 8192], [8192, 8192]],"Input type":["c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["",""],"flops":8589934592}},
 {"args":{"Input Dims":[[4]],"Input type":["float"]},"ph":"X","cat":"user_annotation","name":"a","pid":1,"tid":1,"ts":2,"dur":5},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":8,"dur":1,"args":{"Input Dims":[[4],[4],[]],"Input type":["float","float","Scalar"],"Concrete Inputs":["","","1"]}}
]}`
	st, f := read(t, []byte(doc), whole)
	if !f.Complete || len(st.CPU) != 4 || len(st.Shapes) != 2 {
		t.Fatalf("complete %v, %d cpu, %d shapes", f.Complete, len(st.CPU), len(st.Shapes))
	}
	mm := st.ShapesOf(1)
	if mm == nil || st.Name(mm.Dims) != `[[64, 8192], [8192, 8192]]` || st.Name(mm.Types) != `["c10::BFloat16","c10::BFloat16"]` || mm.Flops != 8589934592 {
		t.Errorf("mm: %+v", mm)
	}
	add := st.ShapesOf(3)
	if add == nil || st.Name(add.Concrete) != `["","","1"]` || add.Flops != None {
		t.Errorf("add: %+v", add)
	}
	if st.ShapesOf(0) != nil || st.ShapesOf(2) != nil {
		t.Error("shapes for an op or annotation without them")
	}
}

// Every chunking of a document gives the same store.
func TestChunkBoundaries(t *testing.T) {
	want, _ := read(t, []byte(sample), whole)
	for size := 1; size < 64; size++ {
		got, f := read(t, []byte(sample), func(int) int { return size })
		if d := digest(got); d != digest(want) || !f.Complete {
			t.Fatalf("chunk size %d: differs or incomplete (%q)", size, f.Problem)
		}
	}
	rng := rand.New(rand.NewSource(1))
	data := realTrace(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	ref, _ := read(t, data, whole)
	got, _ := read(t, data, func(int) int { return 1 + rng.Intn(300) })
	if digest(got) != digest(ref) {
		t.Fatal("random chunking of a real trace changed the store")
	}
}

func TestTolerantInput(t *testing.T) {
	// raw control characters, invalid UTF-8, bare array, integer ts.
	doc := "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\xff\xfe\n\\q\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1}]"
	st, f := read(t, []byte(doc), whole)
	if !f.Complete || len(st.GPU) != 1 {
		t.Fatalf("bare array: complete=%v gpu=%d %q", f.Complete, len(st.GPU), f.Problem)
	}
	if got := st.Name(st.GPU[0].Name); got != "k\uFFFD\uFFFD\n\\q" {
		t.Errorf("name %q", got)
	}
}

func TestTruncation(t *testing.T) {
	data := realTrace(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	full, _ := read(t, data, whole)
	prev := -1
	for _, frac := range []float64{0, 0.001, 0.1, 0.25, 0.5, 0.9, 0.999} {
		cut := int(float64(len(data)) * frac)
		st, f := read(t, data[:cut], whole)
		if f.Complete {
			t.Fatalf("cut at %d: reported complete", cut)
		}
		if f.Problem == "" || (cut > 0 && !strings.Contains(f.Problem, "byte")) {
			t.Errorf("cut at %d: problem %q should name the byte offset", cut, f.Problem)
		}
		n := len(st.GPU) + len(st.CPU)
		if n < prev || n > len(full.GPU)+len(full.CPU) {
			t.Errorf("cut at %d: %d events kept (previous cut %d)", cut, n, prev)
		}
		prev = n
	}
	// Dropping only the closing "]}" keeps every event.
	trim := bytes.TrimRight(data, " \n")
	trim = bytes.TrimSuffix(trim, []byte("}"))
	st, f := read(t, trim, whole)
	if f.Complete || len(st.GPU) != len(full.GPU) {
		t.Errorf("missing final brace: complete=%v, %d of %d GPU ops", f.Complete, len(st.GPU), len(full.GPU))
	}
}

func TestNotJSON(t *testing.T) {
	_, f := read(t, []byte("hello world"), whole)
	if f.Complete || !strings.Contains(f.Problem, "not a JSON trace") {
		t.Errorf("problem %q", f.Problem)
	}
	_, f = read(t, nil, whole)
	if f.Complete || f.Problem != "empty input" {
		t.Errorf("empty: %q", f.Problem)
	}
}

// Every shared trace reads completely, with no bad events.
func TestSharedTraces(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared, "traces/*/*/*.json.gz"))
	more, _ := filepath.Glob(filepath.Join(shared, "traces/*/*/*/*.json.gz"))
	more2, _ := filepath.Glob(filepath.Join(shared, "traces/*/*/*/*/*.json*"))
	g, _ := filepath.Glob(filepath.Join(shared, "gpu/traces/*.json.gz"))
	files = append(append(append(files, more...), more2...), g...)
	if len(files) < 30 {
		fixture.Missing(t, "shared testdata not found (%d files)", len(files))
	}
	for _, p := range files {
		data := readFile(t, p)
		st, f := read(t, data, func(int) int { return 1 << 16 })
		if !f.Complete || f.BadEvents > 0 || !f.SawEvents {
			t.Errorf("%s: complete=%v bad=%d saw=%v %q", p, f.Complete, f.BadEvents, f.SawEvents, f.Problem)
		}
		_ = st
	}
}

func realTrace(t testing.TB, rel string) []byte {
	p := filepath.Join(shared, rel)
	if _, err := os.Stat(p); err != nil {
		fixture.Missing(t, "shared testdata missing: %v", err)
	}
	return readFile(t, p)
}

func readFile(t testing.TB, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(sample), 7)
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"a\`), 3)
	f.Add([]byte(`[{"ph":"X","ts":"1e400","dur":"x"}]`), 1)
	f.Fuzz(func(t *testing.T, data []byte, size int) {
		if size <= 0 {
			size = 1
		}
		st, f := read(t, data, func(int) int { return size })
		if !f.Complete && f.Problem == "" {
			t.Fatal("incomplete without a problem")
		}
		for _, o := range st.GPU {
			if o.Dur < 0 {
				t.Fatal("negative duration kept")
			}
		}
	})
}

func BenchmarkReader(b *testing.B) {
	data := realTrace(b, "gpu/traces/tp_rank0.trace.json.gz")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		read(b, data, func(int) int { return 1 << 20 })
	}
}

// Several escaped strings in one event (name, tid, args.kernel) each keep
// their own decoded bytes, on the in-chunk path and across chunk edges.
func TestEscapesInOneEvent(t *testing.T) {
	doc := []byte(`{"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"hip\u004caunchKernel","pid":1,"tid":"t\"1","ts":5,"dur":2,"args":{"correlation":3,"kernel":"k\u003c1\u003e"}},
 {"ph":"X","cat":"cuda_runtime","name":"plain","pid":1,"tid":"t\"1","ts":9,"dur":2,"args":{"correlation":4}}]}`)
	for _, chunk := range []int{len(doc), 7} {
		st, _ := read(t, doc, func(int) int { return chunk })
		if len(st.CPU) != 2 {
			t.Fatalf("chunk %d: %d cpu spans", chunk, len(st.CPU))
		}
		c := st.CPU[0]
		if st.Name(c.Name) != "hipLaunchKernel" || st.Name(c.Kernel) != "k<1>" || st.Name(c.Track) != `1 t"1` {
			t.Errorf("chunk %d: name %q kernel %q track %q", chunk, st.Name(c.Name), st.Name(c.Kernel), st.Name(c.Track))
		}
		if st.Name(st.CPU[1].Name) != "plain" || st.CPU[1].Track != c.Track {
			t.Errorf("chunk %d: second event %q track %d vs %d", chunk, st.Name(st.CPU[1].Name), st.CPU[1].Track, c.Track)
		}
	}
}
