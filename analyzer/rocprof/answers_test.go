package rocprof_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/rocprof"
	"github.com/gputriage/gputriage/analyzer/trace"
	"github.com/gputriage/gputriage/internal/sqlrows"
)

// The shared answer keys (../shared/testdata/rocprof/answers.json, written
// by key.py from each file's own rows, independently of this code) are
// recomputed here from the store each reader fills, by the README's
// definitions: plain sums of kernel time, half-open busy intervals that
// merge when they touch, names verbatim.

const dir = "rocprof/"

func read(t *testing.T, rel string) []byte {
	t.Helper()
	if _, err := os.Stat(filepath.Join(fixture.Shared, dir+rel)); err != nil && os.Getenv("CI") != "" {
		t.Fatalf("fixture missing under CI: %v", err)
	}
	return fixture.Read(t, dir+rel)
}

func answers(t *testing.T) map[string]json.RawMessage {
	var a map[string]json.RawMessage
	if err := json.Unmarshal(read(t, "answers.json"), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// dbRows queries a shared database as the CLI does and reads its rows.
func dbRows(t *testing.T, rel string) *trace.Store {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(p, read(t, rel), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := sqlrows.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	st := trace.NewStore()
	r := rocprof.NewRows(st, rel, 8<<20)
	// odd chunks: rows straddle writes
	for b := buf.Bytes(); len(b) > 0; {
		n := min(len(b), 4093)
		r.Write(b[:n])
		b = b[n:]
	}
	if format, problem := r.Close(); format == "" || problem != "" {
		t.Fatalf("%s: %q %s", rel, format, problem)
	}
	return st
}

func loadJSON(t *testing.T) *trace.Store {
	st := trace.NewStore()
	if err := rocprof.ReadJSON(st, "908_results.json.gz", read(t, "908_results.json.gz")); err != nil {
		t.Fatal(err)
	}
	return st
}

func loadCSV(t *testing.T) *trace.Store {
	st := trace.NewStore()
	run := rocprof.NewCSVRun(st, "908_*.csv")
	for _, f := range []string{"908_kernel_trace.csv.gz", "908_hip_api_trace.csv", "908_memory_copy_trace.csv", "908_agent_info.csv"} {
		c := run.File(8 << 20)
		b := read(t, f)
		for len(b) > 0 {
			n := min(len(b), 65521)
			c.Write(b[:n])
			b = b[n:]
		}
		if kind, problem := c.Close(); kind == "" || problem != "" {
			t.Fatalf("%s: %q %s", f, kind, problem)
		}
	}
	run.Flush()
	return st
}

type keys struct {
	Count    int64 `json:"kernel_dispatch_count"`
	TotalNS  int64 `json:"kernel_time_total_ns"`
	Distinct int   `json:"distinct_kernel_names"`
	SHA      string
	Top      []topKernel `json:"top_kernels"`
}

type topKernel struct {
	Count   int64  `json:"count"`
	Name    string `json:"name"`
	TotalNS int64  `json:"total_ns"`
}

type busy struct {
	Key                  int64
	Kernels              int64
	KernelNS             int64
	Busy, Span, Idle     int64
	Start, End           int64
	BusyAll, Copies, All int64
}

func kernelKeys(st *trace.Store) keys {
	type agg struct{ n, ns int64 }
	by := map[string]*agg{}
	var k keys
	for _, o := range st.GPU {
		if o.Kind != trace.KindKernel {
			continue
		}
		k.Count++
		k.TotalNS += o.Dur
		n := st.Name(o.Name)
		if by[n] == nil {
			by[n] = &agg{}
		}
		by[n].n++
		by[n].ns += o.Dur
	}
	var all []topKernel
	for n, a := range by {
		all = append(all, topKernel{a.n, n, a.ns})
	}
	k.Distinct = len(all)
	slices.SortFunc(all, func(a, b topKernel) int {
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		return int(a.Count - b.Count)
	})
	var triples [][3]any
	for _, x := range all {
		triples = append(triples, [3]any{x.Name, x.Count, x.TotalNS})
	}
	// key.py: json.dumps(..., separators=(",", ":")), ensure_ascii default
	raw, _ := json.Marshal(triples)
	sum := sha256.Sum256(pyASCII(raw))
	k.SHA = hex.EncodeToString(sum[:])
	slices.SortStableFunc(all, func(a, b topKernel) int {
		if a.TotalNS != b.TotalNS {
			if a.TotalNS > b.TotalNS {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	k.Top = all[:min(15, len(all))]
	return k
}

// pyASCII turns Go's JSON into Python's json.dumps default: non-ASCII as
// \uXXXX, and Go's HTML escapes of <, >, & undone.
func pyASCII(b []byte) []byte {
	s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
	var out strings.Builder
	for _, r := range s {
		if r < 0x80 {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16(r) {
			out.WriteString(`\u` + hex4(u))
		}
	}
	return []byte(out.String())
}

func utf16(r rune) []uint16 {
	if r < 0x10000 {
		return []uint16{uint16(r)}
	}
	r -= 0x10000
	return []uint16{uint16(0xD800 + (r >> 10)), uint16(0xDC00 + (r & 0x3FF))}
}

func hex4(u uint16) string {
	const h = "0123456789abcdef"
	return string([]byte{h[u>>12], h[u>>8&15], h[u>>4&15], h[u&15]})
}

// union is the merged length of half-open intervals; touching ones merge.
func union(iv [][2]int64) (total, start, end int64) {
	if len(iv) == 0 {
		return 0, 0, 0
	}
	slices.SortFunc(iv, func(a, b [2]int64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	start, end = iv[0][0], iv[0][1]
	cs, ce := iv[0][0], iv[0][1]
	for _, x := range iv[1:] {
		if x[0] <= ce {
			ce = max(ce, x[1])
		} else {
			total += ce - cs
			cs, ce = x[0], x[1]
		}
		end = max(end, x[1])
	}
	total += ce - cs
	return total, start, end
}

// perDevice computes busy/idle per Device over kernels and copies (and,
// for BusyAll, every GPU op).
func perDevice(st *trace.Store) map[int64]*busy {
	out := map[int64]*busy{}
	iv, all := map[int64][][2]int64{}, map[int64][][2]int64{}
	for _, o := range st.GPU {
		b := out[o.Device]
		if b == nil {
			b = &busy{}
			out[o.Device] = b
		}
		all[o.Device] = append(all[o.Device], [2]int64{o.TS, o.End()})
		switch o.Kind {
		case trace.KindKernel:
			b.Kernels++
			b.KernelNS += o.Dur
		case trace.KindMemcpy:
			b.Copies++
		default:
			continue
		}
		iv[o.Device] = append(iv[o.Device], [2]int64{o.TS, o.End()})
	}
	for d, b := range out {
		b.Busy, b.Start, b.End = union(iv[d])
		b.Span = b.End - b.Start
		b.Idle = b.Span - b.Busy
		b.BusyAll, _, _ = union(all[d])
	}
	return out
}

func checkKernels(t *testing.T, st *trace.Store, want json.RawMessage) {
	t.Helper()
	var w keys
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	var sha struct {
		SHA string `json:"kernel_name_totals_sha256"`
	}
	json.Unmarshal(want, &sha)
	w.SHA = sha.SHA
	got := kernelKeys(st)
	if got.Count != w.Count || got.TotalNS != w.TotalNS || got.Distinct != w.Distinct {
		t.Errorf("kernels: got %d dispatches, %d ns, %d names; want %d, %d, %d", got.Count, got.TotalNS, got.Distinct, w.Count, w.TotalNS, w.Distinct)
	}
	if got.SHA != w.SHA {
		t.Errorf("kernel_name_totals_sha256 = %s, want %s", got.SHA, w.SHA)
	}
	if !slices.Equal(got.Top, w.Top) {
		t.Errorf("top_kernels differ:\n got %v\nwant %v", got.Top, w.Top)
	}
}

func TestAnswers908(t *testing.T) {
	a := answers(t)
	for _, c := range []struct {
		key  string
		load func(*testing.T) *trace.Store
	}{
		{"908_results.json.gz", loadJSON},
		{"908_csv", loadCSV},
		{"908_results.rocpd.db.gz", func(t *testing.T) *trace.Store { return dbRows(t, "908_results.rocpd.db.gz") }},
	} {
		t.Run(c.key, func(t *testing.T) {
			st := c.load(t)
			if len(st.Files) != 1 || st.Files[0].Partial() {
				t.Fatalf("files %+v", st.Files)
			}
			want := a[c.key]
			checkKernels(t, st, want)
			var w struct {
				Agents []struct {
					CUs     int64  `json:"cu_count"`
					Logical int64  `json:"logical_node_id"`
					Name    string `json:"name"`
					Node    int64  `json:"node_id"`
					Product string `json:"product_name"`
				} `json:"gpu_agents"`
				HIP struct {
					Count int64 `json:"count"`
				} `json:"hip_api"`
				Copy struct {
					Bytes *int64 `json:"bytes"`
					Count int64  `json:"count"`
					NS    int64  `json:"time_ns"`
				} `json:"memory_copy"`
				PerAgent []struct {
					Node     int64 `json:"agent_node_id"`
					Busy     int64 `json:"busy_union_ns"`
					Idle     int64 `json:"idle_in_span_ns"`
					Kernels  int64 `json:"kernel_dispatches"`
					KernelNS int64 `json:"kernel_time_ns"`
					Copies   int64 `json:"memory_copies"`
					End      int64 `json:"span_end_ns"`
					Span     int64 `json:"span_ns"`
					Start    int64 `json:"span_start_ns"`
				} `json:"per_agent"`
				Window *struct {
					Fini int64 `json:"fini_ns"`
					Init int64 `json:"init_ns"`
					Idle int64 `json:"idle_in_window_all_agents_ns"`
				} `json:"process_window"`
				Pid int64 `json:"pid"`
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			src := st.Files[0].Source
			if len(src.Agents) != len(w.Agents) {
				t.Fatalf("agents: got %d, want %d", len(src.Agents), len(w.Agents))
			}
			node := map[int64]int64{}
			for i, g := range src.Agents {
				x := w.Agents[i]
				if g.Node != x.Node || g.Logical != x.Logical || g.Arch != x.Name || g.Product != x.Product || g.CUs != x.CUs {
					t.Errorf("agent %d: got %+v, want %+v", i, g, x)
				}
				node[g.Device] = g.Node
			}
			var hip, copies, copyNS int64
			for _, s := range st.CPU {
				if s.Kind == trace.KindRuntime && strings.HasPrefix(st.Name(s.Name), "hip") {
					hip++
				}
			}
			for _, o := range st.GPU {
				if o.Kind == trace.KindMemcpy {
					copies++
					copyNS += o.Dur
				}
			}
			if hip != w.HIP.Count || copies != w.Copy.Count || copyNS != w.Copy.NS {
				t.Errorf("hip %d copies %d/%d ns; want %d, %d/%d", hip, copies, copyNS, w.HIP.Count, w.Copy.Count, w.Copy.NS)
			}
			if w.Copy.Bytes != nil && src.CopyBytes != *w.Copy.Bytes {
				t.Errorf("copy bytes %d, want %d", src.CopyBytes, *w.Copy.Bytes)
			}
			per := perDevice(st)
			if len(per) != len(w.PerAgent) {
				t.Fatalf("per agent: got %d agents, want %d", len(per), len(w.PerAgent))
			}
			var busyAll int64
			for d, b := range per {
				busyAll += b.Busy
				found := false
				for _, x := range w.PerAgent {
					if x.Node != node[d] {
						continue
					}
					found = true
					if b.Busy != x.Busy || b.Idle != x.Idle || b.Kernels != x.Kernels || b.KernelNS != x.KernelNS || b.Copies != x.Copies ||
						b.Start != x.Start || b.End != x.End || b.Span != x.Span {
						t.Errorf("device %d (node %d): got %+v, want %+v", d, node[d], *b, x)
					}
				}
				if !found {
					t.Errorf("device %d: node %d not in the key", d, node[d])
				}
			}
			if w.Window != nil {
				if src.InitNS != w.Window.Init || src.FiniNS != w.Window.Fini || src.Pid != w.Pid {
					t.Errorf("process window %d…%d pid %d, want %d…%d pid %d", src.InitNS, src.FiniNS, src.Pid, w.Window.Init, w.Window.Fini, w.Pid)
				}
				if idle := src.FiniNS - src.InitNS - busyAll; idle != w.Window.Idle {
					t.Errorf("idle in window %d, want %d", idle, w.Window.Idle)
				}
			}
		})
	}
}

func TestAnswersRPD(t *testing.T) {
	a := answers(t)
	for _, key := range []string{"matmul_result.rpd.gz", "mytrace.rpd.gz"} {
		t.Run(key, func(t *testing.T) {
			st := dbRows(t, key)
			want := a[key]
			checkKernels(t, st, want)
			var w struct {
				API struct {
					Count int64 `json:"count"`
				} `json:"api"`
				HIP struct {
					Count int64 `json:"count"`
				} `json:"hip_api"`
				Copy struct {
					Count    int64 `json:"count"`
					NS       int64 `json:"time_ns"`
					WithSize int64 `json:"count_with_size"`
					Bytes    int64 `json:"bytes_of_those"`
				} `json:"memory_copy"`
				OpCount  int64 `json:"op_count"`
				PerAgent []struct {
					BusyAll  int64 `json:"busy_union_all_op_types_ns"`
					Busy     int64 `json:"busy_union_ns"`
					Copies   int64 `json:"copy_ops"`
					GPU      int64 `json:"gpuId"`
					Idle     int64 `json:"idle_in_span_ns"`
					Kernels  int64 `json:"kernel_ops"`
					KernelNS int64 `json:"kernel_time_ns"`
					End      int64 `json:"span_end_ns"`
					Span     int64 `json:"span_ns"`
					Start    int64 `json:"span_start_ns"`
				} `json:"per_agent"`
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			var hip, copies, copyNS int64
			for _, s := range st.CPU {
				if s.Kind == trace.KindRuntime && strings.HasPrefix(st.Name(s.Name), "hip") {
					hip++
				}
			}
			for _, o := range st.GPU {
				if o.Kind == trace.KindMemcpy {
					copies++
					copyNS += o.Dur
				}
			}
			src := st.Files[0].Source
			if int64(len(st.CPU)) != w.API.Count || hip != w.HIP.Count || int64(len(st.GPU)) != w.OpCount {
				t.Errorf("api %d hip %d ops %d; want %d, %d, %d", len(st.CPU), hip, len(st.GPU), w.API.Count, w.HIP.Count, w.OpCount)
			}
			if copies != w.Copy.Count || copyNS != w.Copy.NS || src.CopiesWithSize != w.Copy.WithSize || src.CopyBytes != w.Copy.Bytes {
				t.Errorf("copies %d/%d ns, %d with size = %d B; want %+v", copies, copyNS, src.CopiesWithSize, src.CopyBytes, w.Copy)
			}
			per := perDevice(st)
			for _, x := range w.PerAgent {
				b := per[x.GPU]
				if b == nil {
					t.Fatalf("gpuId %d missing", x.GPU)
				}
				if b.Busy != x.Busy || b.BusyAll != x.BusyAll || b.Idle != x.Idle || b.Kernels != x.Kernels || b.KernelNS != x.KernelNS ||
					b.Copies != x.Copies || b.Start != x.Start || b.End != x.End || b.Span != x.Span {
					t.Errorf("gpuId %d: got %+v, want %+v", x.GPU, *b, x)
				}
			}
		})
	}
}

func TestAnswersCompute(t *testing.T) {
	key := "rocprof_compute_23ed6f36.db.gz"
	st := dbRows(t, key)
	want := answers(t)[key]
	var w struct {
		Count    int64 `json:"kernel_dispatch_count"`
		TotalNS  int64 `json:"kernel_time_total_ns"`
		Distinct int   `json:"distinct_kernel_names"`
		PerAgent []struct {
			Busy  int64 `json:"busy_union_ns"`
			N     int64 `json:"dispatches"`
			GPU   int64 `json:"gpu_id"`
			Idle  int64 `json:"idle_in_span_ns"`
			Span  int64 `json:"span_ns"`
			Start int64 `json:"span_start_ns"`
		} `json:"per_agent"`
		Workloads []struct {
			CUs   int64  `json:"cu_per_gpu"`
			Arch  string `json:"gpu_arch"`
			Model string `json:"gpu_model"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	got := kernelKeys(st)
	if got.Count != w.Count || got.TotalNS != w.TotalNS || got.Distinct != w.Distinct {
		t.Errorf("got %d dispatches %d ns %d names; want %d %d %d", got.Count, got.TotalNS, got.Distinct, w.Count, w.TotalNS, w.Distinct)
	}
	per := perDevice(st)
	for _, x := range w.PerAgent {
		b := per[x.GPU]
		if b == nil || b.Busy != x.Busy || b.Kernels != x.N || b.Idle != x.Idle || b.Span != x.Span || b.Start != x.Start {
			t.Errorf("gpu %d: got %+v, want %+v", x.GPU, b, x)
		}
	}
	ag := st.Files[0].Source.Agents
	if len(ag) != 1 || ag[0].Arch != w.Workloads[0].Arch || ag[0].Product != w.Workloads[0].Model || ag[0].CUs != w.Workloads[0].CUs {
		t.Errorf("agents %+v, want %+v", ag, w.Workloads)
	}
}
