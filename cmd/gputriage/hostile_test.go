package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/internal/escape/mdcheck"
)

// Issue 13's hostile inputs through both engines: each ends quickly with
// a clear refusal or a partial result naming the limit, the same bytes from
// native and wasm, and memory under a stated bound.

// gzipStream gzips what gen writes, produced on the fly (never on disk
// nor whole in memory).
func gzipStream(gen func(w io.Writer) error) io.Reader {
	return gzipStreamLevel(gzip.BestSpeed, gen)
}

func gzipStreamLevel(level int, gen func(w io.Writer) error) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, level)
		err := gen(zw)
		if err == nil {
			err = zw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr
}

// both pushes one input (made afresh per engine) through each engine and
// checks the results are identical; it returns the native one.
func both(t *testing.T, opts analyzer.Options, name string, input func() io.Reader) *analyzer.Result {
	t.Helper()
	res, mem := bothRun(t, opts, name, input)
	if mem > wasmBound {
		t.Errorf("wasm memory %d MiB, bound %d MiB", mem>>20, wasmBound>>20)
	}
	return res
}

// bothMem is both, returning the wasm instance's linear memory instead of
// holding it to wasmBound.
func bothMem(t *testing.T, opts analyzer.Options, name string, input func() io.Reader) uint64 {
	t.Helper()
	_, mem := bothRun(t, opts, name, input)
	return mem
}

func bothRun(t *testing.T, opts analyzer.Options, name string, input func() io.Reader) (*analyzer.Result, uint64) {
	t.Helper()
	return bothRunFiles(t, opts, []string{name}, func(int) io.Reader { return input() })
}

// bothRunFiles runs one job over the named files on both engines (the
// module on an instance of its own) and returns the native result and the
// module's linear memory after it: the high-water mark of its heap, which
// never shrinks. The two engines' results must be byte-identical.
func bothRunFiles(t *testing.T, opts analyzer.Options, names []string, input func(k int) io.Reader) (*analyzer.Result, uint64) {
	t.Helper()
	var results [2][]byte
	var mem uint64
	var res *analyzer.Result
	for i, kind := range []string{"native", "wasm"} {
		var eng engine = &native{}
		var we *wasmEngine
		if kind == "wasm" {
			we = freshWasm(t)
			eng = we
		}
		o, _ := json.Marshal(opts)
		if err := eng.Begin(o); err != nil {
			t.Fatal(err)
		}
		for k, name := range names {
			in := input(k)
			if err := push(eng, name, in, nil); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if c, ok := in.(io.Closer); ok {
				c.Close() // stops the generator once the job stopped reading
			}
		}
		r, err := eng.Finish()
		if err != nil {
			t.Fatal(err)
		}
		results[i] = r.JSON()
		if kind == "wasm" {
			mem = we.MemoryBytes()
			t.Logf("%s: wasm memory %d MiB", names[0], mem>>20)
		} else {
			res = r
		}
	}
	if !bytes.Equal(results[0], results[1]) {
		t.Errorf("engines differ:\nnative %.600s\nwasm   %.600s", results[0], results[1])
	}
	return res, mem
}

// wasmBound is the module's linear memory bound for one of these inputs,
// measured on an instance of its own (memory never shrinks, so a shared
// instance would measure every earlier test as well).
const wasmBound = 256 << 20 // the largest today: the forged-ISIZE trace, 95 MiB

func TestHostileHugeString(t *testing.T) {
	gen := func() io.Reader {
		return gzipStream(func(w io.Writer) error {
			io.WriteString(w, `{"traceEvents":[{"ph":"X","cat":"kernel","name":"`)
			a := bytes.Repeat([]byte("A"), 1<<20)
			for range 12 { // 12 MiB string against a 2 MiB limit; the 3 GiB behaves the same
				if _, err := w.Write(a); err != nil {
					return err
				}
			}
			_, err := io.WriteString(w, `"}]}`)
			return err
		})
	}
	res := both(t, analyzer.Options{Command: "breakdown", Limits: limits.Limits{EventBytes: 2 << 20}}, "huge.json.gz", gen)
	f := res.Files[0]
	if res.ExitCode != analyzer.ExitPartial || !strings.Contains(f.Problem, "--max-event-bytes") || !strings.Contains(f.Problem, "byte 16") || f.Bytes > 8<<20 {
		t.Errorf("exit %d: %+v", res.ExitCode, f)
	}
}

func TestHostileRatioBomb(t *testing.T) {
	ev := []byte(`{"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk_MT64","pid":1,"tid":7,"ts":1000.5,"dur":1.25,"args":{"correlation":1}},`)
	gen := func() io.Reader {
		return gzipStreamLevel(gzip.BestCompression, func(w io.Writer) error {
			io.WriteString(w, `{"traceEvents":[`)
			block := bytes.Repeat(ev, (1<<20)/len(ev))
			for range 64 { // 64 MiB of identical events (~900×): the 21 GiB case in small
				if _, err := w.Write(block); err != nil {
					return err
				}
			}
			return nil
		})
	}
	o := analyzer.Options{Command: "breakdown", Limits: limits.Limits{RatioAfter: 4 << 20}}
	res := both(t, o, "bomb.json.gz", gen)
	f := res.Files[0]
	if res.ExitCode != analyzer.ExitPartial || !strings.Contains(f.Problem, "--max-ratio") || f.Bytes > 16<<20 {
		t.Errorf("exit %d: %+v", res.ExitCode, f)
	}
}

// A 21 KB gzip whose ISIZE trailer claims 4 GiB must not make either
// engine plan gigabytes.
func TestHostileForgedISIZE(t *testing.T) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	io.WriteString(zw, `{"traceEvents":[`)
	for i := range 200_000 {
		fmt.Fprintf(zw, `{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":%d,"dur":1},`, i%10)
	}
	io.WriteString(zw, `{}]}`)
	zw.Close()
	b := buf.Bytes()
	binary.LittleEndian.PutUint32(b[len(b)-4:], 0xFFFFFFF0) // forged
	path := filepath.Join(t.TempDir(), "forged.json.gz")
	os.WriteFile(path, b, 0o644)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	res := both(t, analyzer.Options{Command: "breakdown"}, path, func() io.Reader { fh, _ := os.Open(path); return fh })
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > 1<<30 {
		t.Errorf("allocated %d MiB for a %d KB file", got>>20, len(b)>>10)
	}
	if res.ExitCode != analyzer.ExitPartial || !strings.Contains(res.Files[0].Problem, "gzip") {
		t.Errorf("exit %d: %+v (a wrong ISIZE is a damaged gzip)", res.ExitCode, res.Files[0])
	}
}

func TestHostileNumbers(t *testing.T) {
	k := func(ts, dur string) string {
		return `{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":` + ts + `,"dur":` + dur + `},`
	}
	doc := `{"traceEvents":[` + k("10", "2") + k("11", "1e19") + k("1e308", "1") + k("12", "NaN") + k("13", "null") +
		k("14", "-3") + k(`"abc"`, "1") + k("-5", "1") + k("15", "1e400") + `{}]}`
	// ts "abc": not a number; 1e308, -5: out of range; dur NaN, null: not
	// numbers; 1e19, 1e400: out of range; -3: negative.
	res := both(t, analyzer.Options{Command: "breakdown"}, "numbers.json", func() io.Reader { return strings.NewReader(doc) })
	f := res.Files[0]
	got, _ := json.Marshal(f.Problems)
	want := `[{"what":"events whose ts is not a number (skipped)","count":1},{"what":"events whose ts is negative or beyond 4e+18 ns (skipped)","count":2},` +
		`{"what":"events whose dur is not a number (skipped)","count":2},{"what":"events whose dur is beyond 1e+12 ns (skipped)","count":2},{"what":"events with a negative dur (counted as 0)","count":1}]`
	if string(got) != want || res.ExitCode != analyzer.ExitPartial || !f.Partial {
		t.Errorf("exit %d partial %v problems\n%s\nwant\n%s", res.ExitCode, f.Partial, got, want)
	}
	tl, _ := res.Artifact("gpu_timeline.json")
	if strings.Contains(tl, "-92233") {
		t.Errorf("overflowed time in the timeline: %.400s", tl)
	}
}

func TestHostileDeepNesting(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	trace := `{"distributedInfo":` + deep + `,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":1,"dur":1}]}`
	res := both(t, analyzer.Options{Command: "breakdown"}, "deep.json", func() io.Reader { return strings.NewReader(trace) })
	if f := res.Files[0]; res.ExitCode != analyzer.ExitPartial || !strings.Contains(f.Problem, "distributedInfo nested deeper than 64 levels") {
		t.Errorf("exit %d: %+v", res.ExitCode, f)
	}
	side := `{"exit_code":` + deep + `}`
	res = both(t, analyzer.Options{Command: "auto"}, "crash_diagnostics.json", func() io.Reader { return strings.NewReader(side) })
	if f := res.Files[0]; res.ExitCode != analyzer.ExitUsage || !strings.Contains(f.Problem, "--max-depth") {
		t.Errorf("side document: exit %d: %+v", res.ExitCode, f)
	}
}

func TestHostileSilentSuccesses(t *testing.T) {
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "server.log", Method: zip.Store})
	io.WriteString(w, strings.Repeat("INFO all good\n", 100))
	zw.Close()
	for _, c := range []struct {
		name, cmd, in, want string
	}{
		{"spaces.json", "breakdown", "  \n\t \n", "only whitespace"},
		{"bom.json", "breakdown", "\xef\xbb\xbf", "only whitespace or a byte-order mark"},
		{"long-blank.json", "breakdown", strings.Repeat(" ", 4000), "only whitespace"},
		{"string.json", "breakdown", `"just a string"`, "a JSON string"},
		{"logs.zip", "auto", zipped.String(), "a zip archive"},
		{"logs.zip", "diagnose", zipped.String(), "a zip archive"},
	} {
		res := both(t, analyzer.Options{Command: c.cmd}, c.name, func() io.Reader { return strings.NewReader(c.in) })
		if res.ExitCode != analyzer.ExitUsage || !strings.Contains(res.Error, c.want) {
			t.Errorf("%s (%s): exit %d, error %q; want exit 2 with %q", c.name, c.cmd, res.ExitCode, res.Error, c.want)
		}
	}
}

// Names from the input reach the terminal and the Markdown summaries only
// escaped.
func TestHostileInjection(t *testing.T) {
	dir := t.TempDir()
	// with the direction marks, U+FEFF and the line separators (invisible
	// or a line break to some renderers): shown like U+202E
	evil := `\u001b]0;pwned\u0007\u001b[2J<img src=x onerror=alert(1)>` + "`" + `|x\u061c\u200e\u200f\ufeff\u2028\u2029y`
	const marks = "\u061c\u200e\u200f\ufeff\u2028\u2029"
	tr := filepath.Join(dir, "t.json")
	os.WriteFile(tr, []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"`+evil+`","pid":1,"tid":7,"ts":1,"dur":1}]}`), 0o644)
	log := filepath.Join(dir, "<img src=x onerror=alert(1)>.log")
	os.WriteFile(log, []byte("Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x7f00. Reason: Page not present or supervisor privilege.\n"), 0o644)
	for _, eng := range []string{"native", "wasm"} {
		var out, errb bytes.Buffer
		run([]string{"breakdown", "--engine", eng, "-q", "-o", filepath.Join(dir, eng), tr}, nil, &out, &errb)
		if bytes.ContainsAny(out.Bytes(), "\x1b\x07"+marks) || bytes.ContainsAny(errb.Bytes(), "\x1b\x07"+marks) {
			t.Errorf("%s: control characters reach the terminal: %q", eng, out.String())
		}
		md, _ := os.ReadFile(filepath.Join(dir, eng, "profile_summary.md"))
		if rawMarkup(md) || bytes.Contains(md, []byte("\x1b")) || bytes.ContainsAny(md, marks) {
			t.Errorf("%s: profile_summary.md carries raw markup or marks: %s", eng, md)
		}
		if !bytes.Contains(md, []byte(`\u{061c}\u{200e}\u{200f}\u{feff}\u{2028}\u{2029}`)) {
			t.Errorf("%s: profile_summary.md does not show the marks: %s", eng, md)
		}
		if csv, _ := os.ReadFile(filepath.Join(dir, eng, "kernel_table.csv")); len(csv) == 0 || bytes.ContainsAny(csv, marks) {
			t.Errorf("%s: kernel_table.csv carries raw marks: %q", eng, csv)
		}
		out.Reset()
		run([]string{"diagnose", "--engine", eng, "-q", "-o", filepath.Join(dir, eng+"-crash"), log}, nil, &out, &errb)
		md, _ = os.ReadFile(filepath.Join(dir, eng+"-crash", "crash_summary.md"))
		if len(md) == 0 || rawMarkup(md) {
			t.Errorf("%s: crash_summary.md carries raw markup: %s", eng, md)
		}
	}
}

// rawMarkup reports an element a CommonMark renderer (raw HTML passed
// through) makes from the input's <img> tag: outside code spans and
// fences, whatever their delimiter length.
func rawMarkup(md []byte) bool {
	return slices.Contains(mdcheck.Tags(md), "img")
}

// The JUnit report on stdout carries kernel and file names too: no C1
// control (8-bit CSI) or bidi override reaches the terminal.
func TestHostileJUnitStdout(t *testing.T) {
	x := "<?xml version=\"1.0\"?>\n<testsuite><testcase name=\"kernel:a\u009b2J\u202eb\"></testcase></testsuite>\n"
	res := &analyzer.Result{Artifacts: []analyzer.Artifact{{Name: "diff_junit.xml", Text: x}}}
	var out bytes.Buffer
	printResult(&out, res, "junit")
	if strings.ContainsAny(out.String(), "\u009b\u202e") {
		t.Errorf("control characters reach the terminal: %q", out.String())
	}
	if !strings.Contains(out.String(), `kernel:a\u{009b}2J\u{202e}b`) {
		t.Errorf("the escaped name is not shown: %q", out.String())
	}
}

// Whitespace past the sniff window (64 KiB) is taken for a log; the
// sniffer once indexed the trimmed, empty window and panicked natively.
// Gzipped the same (under the ratio guard's 64 MiB floor, so read whole).
func TestHostileBlankPastSniff(t *testing.T) {
	blanks := strings.Repeat(" ", 70_000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(" ", 4<<20)))
	zw.Close()
	for _, c := range []struct {
		name, cmd, in string
		exit          int
	}{
		{"server.log", "diagnose", blanks, analyzer.ExitOK},
		{"server.log", "auto", blanks, analyzer.ExitOK},
		{"server.log.gz", "diagnose", gz.String(), analyzer.ExitOK},
		{"server.log.gz", "auto", gz.String(), analyzer.ExitOK},
	} {
		res := both(t, analyzer.Options{Command: c.cmd}, c.name, func() io.Reader { return strings.NewReader(c.in) })
		if res.ExitCode != c.exit {
			t.Errorf("%s (%s): exit %d, error %q, files %+v; want exit %d", c.name, c.cmd, res.ExitCode, res.Error, res.Files, c.exit)
		}
	}
}

// TestHostileGzipJunkOffset: a gzipped trace followed by junk names the
// damage at the input's own offset (the member's end plus the 10 header
// bytes gzip read of the junk), on both engines, whether the file is read
// by the fast inflater's fallback (seekable) or compress/gzip alone (a
// stream). The page said 2097152 and the CLI 4096 for hostile sweep 3's
// gzip-trailing-junk: how far each host read ahead (issue 24).
func TestHostileGzipJunkOffset(t *testing.T) {
	var m bytes.Buffer
	zw := gzip.NewWriter(&m)
	zw.Write([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"stream":7}}]}`))
	zw.Close()
	data := append(append([]byte(nil), m.Bytes()...), bytes.Repeat([]byte{0x1f, 0x8b, 0}, 3<<20)...)
	want := fmt.Sprintf("(%d compressed): gzip: invalid header", m.Len()+10)
	for name, in := range map[string]func() io.Reader{
		"seekable": func() io.Reader { return bytes.NewReader(data) },
		"stream":   func() io.Reader { return io.MultiReader(bytes.NewReader(data)) },
	} {
		res := both(t, analyzer.Options{Command: "breakdown"}, "t.json.gz", in)
		if res.ExitCode != analyzer.ExitPartial || len(res.Files) == 0 || !strings.Contains(res.Files[0].Problem, want) {
			t.Errorf("%s: exit %d, files %+v; want a partial whose problem holds %q", name, res.ExitCode, res.Files, want)
		}
	}
}
