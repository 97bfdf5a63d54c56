package analyzer

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// The hostile inputs of issue 13, generated and streamed through a Job in
// 1 MiB chunks (never a file on disk), under a stated memory bound.

const chunk = 1 << 20

// heapBound is the most the job may hold while these inputs stream: the
// event limit, a 1 MiB chunk, and bookkeeping — far below the inputs'
// sizes (hundreds of MiB to GiB).
const heapBound = 48 << 20

// stream pushes gen's bytes (up to max) into a fresh job until the job says
// stop, tracking the live heap; ratio > 0 reports compressed progress as if
// the input compressed that many times.
//
// peak is the most the job keeps live: the heap after a forced GC, sampled
// every 16 chunks and at the end, less the heap before the job began. A
// forced GC makes it independent of when the collector last ran (machine
// load, GOGC), which HeapInuse is not. Once peak passes bound the stream
// stops, so a job that stopped bounding memory fails the test quickly
// instead of streaming gigabytes.
func stream(t *testing.T, o Options, gen func(dst []byte, off int64) []byte, max int64, ratio int64, bound uint64) (res *Result, pushed int64, peak uint64) {
	t.Helper()
	base := liveHeap()
	live := func() uint64 { h := liveHeap(); return h - min(base, h) }
	j, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("hostile.json.gz")
	buf := make([]byte, 0, chunk)
	for pushed < max {
		buf = gen(buf[:0], pushed)
		if ratio > 0 {
			j.FileRead((pushed+int64(len(buf)))/ratio + 1)
		}
		_, err := j.Write(buf)
		pushed += int64(len(buf))
		if pushed%(16*chunk) < chunk {
			if peak = max64(peak, live()); peak > bound {
				break
			}
		}
		if errors.Is(err, ErrStop) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	peak = max64(peak, live())
	j.EndFile()
	runtime.KeepAlive(buf)
	return j.Finish(), pushed, peak
}

// liveHeap is the heap the program holds: HeapAlloc right after a GC.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func max64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// hugeString is `{"traceEvents":[{"name":"AAAA…` without end.
func hugeString(dst []byte, off int64) []byte {
	if off == 0 {
		dst = append(dst, `{"traceEvents":[{"ph":"X","cat":"kernel","name":"`...)
	}
	for len(dst) < chunk {
		dst = append(dst, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"...)
	}
	return dst
}

// kernelEvents is an endless traceEvents array of distinct-time kernels.
func kernelEvents(dst []byte, off int64) []byte {
	if off == 0 {
		dst = append(dst, `{"traceEvents":[`...)
	}
	for i := off; len(dst) < chunk-200; i++ {
		dst = fmt.Appendf(dst, `{"ph":"X","cat":"kernel","name":"Cijk_Ailk_Bljk_MT%d","pid":1,"tid":7,"ts":%d.5,"dur":1.25,"args":{"correlation":%d}},`, i%7, 1000+i, i)
	}
	return dst
}

func TestHugeStringStopsAtEventLimit(t *testing.T) {
	res, pushed, peak := stream(t, Options{Command: "breakdown"}, hugeString, 3<<30, 1000, heapBound)
	if pushed > limits.DefaultEventBytes+2*chunk {
		t.Errorf("pushed %d bytes before the job stopped; want about the event limit %d", pushed, limits.DefaultEventBytes)
	}
	f := res.Files[0]
	if res.ExitCode != ExitPartial || !f.Partial || !strings.Contains(f.Problem, "--max-event-bytes") || !strings.Contains(f.Problem, "byte 16") {
		t.Errorf("exit %d, file %+v; want partial naming the limit and the element's byte 16", res.ExitCode, f)
	}
	if peak > heapBound {
		t.Errorf("heap grew %d MiB, bound %d MiB", peak>>20, heapBound>>20)
	}
}

func TestRecordLimit(t *testing.T) {
	o := Options{Command: "breakdown", Limits: limits.Limits{Records: 50_000}}
	res, pushed, peak := stream(t, o, kernelEvents, 1<<34, 0, heapBound)
	f := res.Files[0]
	if res.ExitCode != ExitPartial || !strings.Contains(f.Problem, "--max-records") || !strings.Contains(f.Problem, "event 50001") {
		t.Fatalf("exit %d, file %+v", res.ExitCode, f)
	}
	if pushed > 50_000*150+2*chunk {
		t.Errorf("pushed %d bytes past the record limit", pushed)
	}
	// The records before the limit are all analysed.
	kt, _ := res.Artifact("kernel_table.json")
	var tab struct{ Rows []struct{ Launches int } }
	if err := json.Unmarshal([]byte(kt), &tab); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range tab.Rows {
		n += r.Launches
	}
	if n != 50_000 {
		t.Errorf("kernel table counts %d launches, want the 50000 kept", n)
	}
	if peak > heapBound {
		t.Errorf("heap grew %d MiB, bound %d MiB", peak>>20, heapBound>>20)
	}
}

// A 77 MB gzip expanding to 21 GiB: the ratio guard stops it at its first
// checkpoint, limits.DefaultRatioAfter + ratioStep decompressed bytes
// (docs/limits.md), and the job keeps live no more than the bytes it let
// through (~140-byte events kept as smaller records). With the guard broken
// the stream runs on, the live heap passes that bound at the next sample,
// and both checks fail.
func TestRatioGuard(t *testing.T) {
	const stopAt = limits.DefaultRatioAfter + ratioStep
	res, pushed, peak := stream(t, Options{Command: "breakdown"}, kernelEvents, 21<<30, 280, stopAt)
	f := res.Files[0]
	if res.ExitCode != ExitPartial || !strings.Contains(f.Problem, "--max-ratio") {
		t.Errorf("exit %d, file %+v", res.ExitCode, f)
	}
	if f.Bytes != stopAt || pushed > stopAt+chunk {
		t.Errorf("analysed %d bytes, pushed %d; want the guard to stop at %d", f.Bytes, pushed, stopAt)
	}
	if peak > stopAt {
		t.Errorf("live heap grew %d bytes, more than the %d bytes the guard let through", peak, uint64(stopAt))
	}
}

// A forged size hint (a 21 KB gzip whose ISIZE claims 4 GiB, or worse) must
// not make the reader plan gigabytes.
func TestForgedHint(t *testing.T) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.TotalAlloc
	j, _ := New(Options{Command: "breakdown"})
	j.BeginFile("forged.json.gz")
	j.FileSize(1 << 40)
	buf := make([]byte, 0, chunk)
	var off int64
	for off < 6*chunk {
		buf = kernelEvents(buf[:0], off)
		j.Write(buf)
		off += int64(len(buf))
	}
	j.EndFile()
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - base; got > 64<<20 {
		t.Errorf("allocated %d MiB for 6 MiB of events with a forged 1 TiB hint", got>>20)
	}
	if res := j.Finish(); res.ExitCode != ExitPartial { // the stream is cut short
		t.Errorf("exit %d", res.ExitCode)
	}
}

// FuzzSideDocuments pushes arbitrary header values (decoded whole:
// distributedInfo, deviceProperties, runtime versions) and arbitrary JSON
// side documents through a job: no panic, a verdict, and nothing nested
// deeper than the limit reaches a decoder.
func FuzzSideDocuments(f *testing.F) {
	f.Add([]byte(`{"backend":"nccl","rank":1,"world_size":8,"nccl_version":"2.21"}`), []byte(`[{"id":0,"name":"AMD Instinct MI300X","computeMajor":9}]`), []byte(`60342134`))
	f.Add([]byte(strings.Repeat("[", 100)), []byte(`{"a":`+strings.Repeat(`{"a":`, 70)+`1`+strings.Repeat("}", 71)), []byte(`"x"`))
	f.Add([]byte(`{"rank":1e400,"backend":1}`), []byte(`null`), []byte(`-1`))
	f.Fuzz(func(t *testing.T, dist, devs, ver []byte) {
		doc := fmt.Appendf(nil, `{"distributedInfo":%s,"deviceProperties":%s,"hip_runtime_version":%s,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":1,"dur":1}]}`, dist, devs, ver)
		for _, cmd := range []string{"breakdown", "auto"} {
			j, _ := New(Options{Command: cmd})
			j.BeginFile("t.json")
			j.Write(doc)
			j.EndFile()
			if r := j.Finish(); r.ExitCode < 0 || r.ExitCode > 2 {
				t.Fatalf("exit %d", r.ExitCode)
			}
			// The same bytes as a JSON side document (no traceEvents).
			j, _ = New(Options{Command: cmd})
			j.BeginFile("crash_diagnostics.json")
			j.Write(fmt.Appendf(nil, `{"exit_code":%s,"gpu_arch":%s,"crash_dumps":%s}`, ver, dist, devs))
			j.EndFile()
			j.Finish()
		}
	})
}

// FuzzGzipFallback drives the page's gzip fallback (FileGzip) with any
// bytes and any count already fed: no panic, no hang, and for a valid
// stream the job ends with exactly the stream's bytes.
func FuzzGzipFallback(f *testing.F) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":1,"dur":1}]}`))
	zw.Close()
	f.Add(b.Bytes(), 10, 7)
	f.Add(append(b.Bytes(), b.Bytes()...), 0, 100)
	f.Add([]byte("\x1f\x8b\x08\x00junk"), 3, 1)
	f.Fuzz(func(t *testing.T, data []byte, fed, step int) {
		fed, step = max(0, fed%200), max(1, step%4096+1)
		want, _ := io.ReadAll(gzipOrEmpty(data))
		fed = min(fed, len(want))
		j, _ := New(Options{Command: "diagnose"})
		j.BeginFile("f.log.gz")
		j.Write(want[:fed])
		j.FileGzip(int64(fed))
		for i := 0; i < len(data); i += step {
			if _, err := j.Write(data[i:min(i+step, len(data))]); err != nil {
				break
			}
		}
		j.EndFile()
		r := j.Finish()
		if int(r.Files[0].Bytes) != len(want) && len(want) < 1<<20 {
			t.Fatalf("job has %d bytes, the stream %d", r.Files[0].Bytes, len(want))
		}
	})
}

func gzipOrEmpty(b []byte) io.Reader {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return bytes.NewReader(nil)
	}
	return io.LimitReader(zr, 1<<20)
}

// The ratio guard stops at the same byte whatever chunks a host pushes: the
// CLI and the Worker push 1 MiB, the page what DecompressionStream hands
// over (issue 24: the message and the run id quote where it stopped).
func TestRatioGuardChunking(t *testing.T) {
	run := func(sizes []int) *Result {
		j, err := New(Options{Command: "breakdown"})
		if err != nil {
			t.Fatal(err)
		}
		j.BeginFile("bomb.json.gz")
		spaces := bytes.Repeat([]byte{' '}, 1<<20)
		var pushed int64
		for i := 0; pushed < 200<<20; i++ {
			p := spaces[:sizes[i%len(sizes)]]
			if pushed == 0 {
				p = append([]byte(`{"traceEvents":[`), p[16:]...)
			}
			j.FileRead(pushed/1000 + 1) // a bomb: 1000×, a host slightly ahead
			_, err := j.Write(p)
			pushed += int64(len(p))
			if errors.Is(err, ErrStop) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		j.EndFile()
		return j.Finish()
	}
	want := run([]int{1 << 20})
	if f := want.Files[0]; want.ExitCode != ExitPartial || !strings.Contains(f.Problem, "decompressed to 68157440 bytes") {
		t.Fatalf("1 MiB chunks: exit %d, %+v", want.ExitCode, f)
	}
	for _, sizes := range [][]int{{64 << 10}, {100003, 7, 65536}, {(1 << 20) - 1}} {
		got := run(sizes)
		if !bytes.Equal(got.JSON(), want.JSON()) {
			t.Errorf("chunks %v: %s\nwant %s", sizes, got.JSON()[:min(600, len(got.JSON()))], want.JSON()[:min(600, len(want.JSON()))])
		}
	}
}

// A JSON side document over --max-side-doc-bytes is a flagged partial, and
// crash_diagnosis.json names the file, the limit and its flag: the Worker's
// zip has only the artifacts (issue 24).
func TestSideDocOverLimitInDiagnosis(t *testing.T) {
	j, err := New(Options{Command: "diagnose", Limits: limits.Limits{SideDocBytes: 1 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	j.BeginFile("fr_rank0.json")
	var b strings.Builder
	b.WriteString(`{"version":"2.4","pg_status":{"0":{"last_enqueued_collective":500,"last_started_collective":500,"last_completed_collective":499}},"entries":[`)
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, `%s{"record_id":%d,"pg_id":0,"collective_seq_id":%d,"profiling_name":"nccl:all_reduce","state":"completed"}`, map[bool]string{true: "", false: ","}[i == 1], i, i)
	}
	b.WriteString("]}")
	j.Write([]byte(b.String()))
	j.EndFile()
	res := j.Finish()
	want := "a side document larger than the limit of 1024 bytes (--max-side-doc-bytes): not read"
	if res.ExitCode != ExitPartial || res.Files[0].Problem != want {
		t.Fatalf("exit %d, %+v", res.ExitCode, res.Files[0])
	}
	d, _ := res.Artifact("crash_diagnosis.json")
	var doc struct {
		Partial bool
		Inputs  []struct{ Name, Problem string }
	}
	if err := json.Unmarshal([]byte(d), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Partial || len(doc.Inputs) != 1 || doc.Inputs[0].Name != "fr_rank0.json" || doc.Inputs[0].Problem != want {
		t.Errorf("crash_diagnosis.json: %s", d)
	}
	if md, _ := res.Artifact("crash_summary.md"); !strings.Contains(md, "fr\\_rank0.json: "+want) && !strings.Contains(md, "fr_rank0.json: "+want) {
		t.Errorf("crash_summary.md does not say it: %s", md)
	}
}

// TestGzipFallbackDamageOffset: the page's fallback names a damaged
// stream's offset by what gzip consumed, whatever chunks the page pushes
// (it pushes 2 MiB File chunks; the CLI and the Worker read differently):
// the same words as the CLI's for hostile sweep 3's gzip-trailing-junk.
func TestGzipFallbackDamageOffset(t *testing.T) {
	var m bytes.Buffer
	zw := gzip.NewWriter(&m)
	zw.Write([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1}]}`))
	zw.Close()
	data := append(append([]byte(nil), m.Bytes()...), bytes.Repeat([]byte{0x1f, 0x8b, 0}, 3<<20)...)
	want := fmt.Sprintf("(%d compressed): gzip: invalid header", m.Len()+10)
	for _, step := range []int{4096, 2 << 20, 7} {
		j, _ := New(Options{Command: "breakdown"})
		j.BeginFile("t.json.gz")
		j.FileGzip(0)
		for i := 0; i < len(data); i += step {
			if _, err := j.Write(data[i:min(i+step, len(data))]); err != nil {
				break
			}
		}
		j.EndFile()
		r := j.Finish()
		if !strings.Contains(r.Files[0].Problem, want) {
			t.Errorf("chunks of %d: problem %q, want it to hold %q", step, r.Files[0].Problem, want)
		}
	}
}

// TestGzipFallbackRatioCount: the ratio guard of the page's fallback counts
// the compressed bytes gzip consumed, not what the page pushed. 1,024 gzip
// members of 1 MiB of spaces (~1 KB each) pushed whole stopped at 206 MiB
// against the file's full size where the CLI stops at 65 MiB, so the page's
// run_id was not the CLI's (hostile sweep 4's gzip-many-small-bombs). The
// page's file_read calls during the fallback are ignored the same way.
func TestGzipFallbackRatioCount(t *testing.T) {
	member := func(prefix string) []byte {
		var m bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&m, gzip.BestCompression)
		zw.Write([]byte(prefix))
		zw.Write(bytes.Repeat([]byte{' '}, 1<<20))
		zw.Close()
		return m.Bytes()
	}
	data := member(`{"traceEvents":[`)
	one := member("")
	for range 1023 {
		data = append(data, one...)
	}
	for _, step := range []int{len(data), 2 << 20, 16 << 10} {
		j, _ := New(Options{Command: "breakdown"})
		j.BeginFile("t.json.gz")
		j.FileGzip(0)
		for i := 0; i < len(data); i += step {
			j.FileRead(int64(min(i+step, len(data))))
			if _, err := j.Write(data[i:min(i+step, len(data))]); err != nil {
				break
			}
		}
		j.EndFile()
		r := j.Finish()
		if want := "decompressed to 68157440 bytes"; len(r.Files) != 1 || !strings.Contains(r.Files[0].Problem, want) || r.Files[0].Bytes != 68157440 {
			t.Errorf("chunks of %d: %+v, want a stop at 68157440 bytes (%q)", step, r.Files, want)
		}
	}
}
