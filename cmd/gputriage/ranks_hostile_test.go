package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/internal/escape/mdcheck"
)

// hostileRank is one rank's Kineto trace of n steps (a ProfilerStep, a
// compute kernel, an all-reduce) whose process group name and description,
// collective name, dtype and step names end in s.
func hostileRank(rank, n int, s string) []byte {
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":2,"pg_config":[{"pg_name":%s,"pg_desc":%s,"ranks":[0,1]}]},"traceEvents":[`, rank, q("0"+s), q("default_pg"+s))
	for i := range n {
		ts := 1000 + i*100
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":%s,"pid":1,"tid":1,"ts":%d,"dur":95}`, q(fmt.Sprintf("ProfilerStep#%d", i)+s), ts)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":"Cijk_gemm","pid":0,"tid":7,"ts":%d,"dur":30,"args":{"device":0,"stream":7}}`, ts+5)
		fmt.Fprintf(&b, `,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":%d,"dur":20,"args":{"device":0,"stream":9,"Collective name":%s,"Process Group Name":%s,"Process Group Description":%s,"Process Group Ranks":"[0, 1]","Group size":2,"In msg nelems":1048576,"dtype":%s,"Seq":%d}}`,
			ts+40+rank*(i%3)*7, q("allreduce"+s), q("0"+s), q("default_pg"+s), q("BFloat16"+s), i)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// Issue 24 (tools/hostile mr-pg-markup, mr-coll-markup, ranks-strings-markup):
// the cross-rank view's step table wrote the collective names (process group
// and its description inside) as raw Markdown, so an <img onerror> in a
// Process Group Name was live in profile_summary.md and ranks_summary.md.
// Every Markdown artifact of a multi-rank triage, and of extract + ranks over
// the same traces, renders no element from the names, on both engines; no
// .md or .csv carries a raw control character.
func TestHostileRanksMarkdown(t *testing.T) {
	dir := t.TempDir()
	var traces []string
	for r := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("r%d.json", r))
		if err := os.WriteFile(p, hostileRank(r, 12, hostileName), 0o644); err != nil {
			t.Fatal(err)
		}
		traces = append(traces, p)
	}
	for _, eng := range []string{"native", "wasm"} {
		out := filepath.Join(dir, eng)
		runs := [][]string{{"triage", "-o", filepath.Join(out, "triage"), traces[0], traces[1]}}
		for r, tr := range traces {
			runs = append(runs, []string{"extract", "-o", filepath.Join(out, "map", fmt.Sprint(r)), tr})
		}
		runs = append(runs, []string{"ranks", "-o", filepath.Join(out, "reduce"), filepath.Join(out, "map")})
		for _, args := range runs {
			var so, se bytes.Buffer
			if code := run(append([]string{args[0], "--engine", eng, "-q"}, args[1:]...), nil, &so, &se); code > 1 {
				t.Fatalf("%s %s: exit %d %s", eng, args[0], code, se.String())
			}
			if bytes.ContainsAny(so.Bytes(), "\x1b\x07") || bytes.ContainsAny(se.Bytes(), "\x1b\x07") {
				t.Errorf("%s %s: control characters reach the terminal", eng, args[0])
			}
		}
		n := 0
		filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			ext := filepath.Ext(p)
			if ext != ".md" && ext != ".csv" {
				return nil
			}
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(out, p)
			if bytes.ContainsAny(b, "\x1b\x07") || strings.ContainsRune(string(b), '\u202e') {
				t.Errorf("%s %s carries a raw control character", eng, rel)
			}
			if ext != ".md" {
				return nil
			}
			n++
			if h := mdcheck.Render(b); strings.Contains(h, "<img") || strings.Contains(h, "Diagnosis: nothing wrong</h") || strings.Contains(h, `href="javascript`) {
				t.Errorf("%s %s renders live markup from the input", eng, rel)
			}
			return nil
		})
		if n < 4 {
			t.Errorf("%s: only %d Markdown artifacts checked", eng, n)
		}
	}
}

// Issue 24 (tools/hostile mr-colls-many, ranks-big): matching collectives
// across ranks cost ~2.7 KB and ~90 µs per op beyond reading (two ranks of
// 100 k all-reduces: 720 MB, four times one rank's triage), unbounded. Each
// rank's first limits.CollectiveOps / ranks are matched, the rest left out
// and said: a note naming the limit, partial (exit 1: the sweep's ranks-big
// exited 0 with the note only in the artifacts), on both engines with the
// same bytes.
func TestBoundsCollectiveOps(t *testing.T) {
	dir := t.TempDir()
	n := limits.CollectiveOps/2 + 100
	for r := range 2 {
		var ops []map[string]any
		for i := range n {
			ops = append(ops, map[string]any{"kind": "allreduce", "pg": "0", "seq": i, "bytes": 1 << 20, "group_size": 2,
				"start_ns": 1000 + i*1000 + r*10, "end_ns": 1000 + i*1000 + 500, "launch_ns": -1, "stream": 9, "step": -1, "busy_ns": 0, "gpu_delay_ns": -1, "before": map[string]any{}})
		}
		b, _ := json.Marshal(map[string]any{"version": "gputriage.rank_summary/1", "file": fmt.Sprintf("r%d.json", r), "rank": r, "world_size": 2,
			"clock_base_ns": 0, "kernel_ns": n * 500, "comm_ns": n * 500, "exposed_comm_ns": n * 500, "busy_ns": n * 500, "window_ns": n * 1000, "steps": []any{}, "ops": ops})
		p := filepath.Join(dir, "in", fmt.Sprint(r), "rank_summary.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
	}
	var first []byte
	for _, eng := range []string{"native", "wasm"} {
		out := filepath.Join(dir, eng)
		var so, se bytes.Buffer
		if code := run([]string{"ranks", "--engine", eng, "-q", "-o", out, filepath.Join(dir, "in")}, nil, &so, &se); code != 1 {
			t.Fatalf("%s: exit %d, want 1 (partial: collectives left out) %s", eng, code, se.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "collectives.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Partial   bool              `json:"partial"`
			Notes     []string          `json:"notes"`
			Instances []json.RawMessage `json:"rows"`
		}
		json.Unmarshal(b, &c)
		if len(c.Instances) != limits.CollectiveOps/2 || !c.Partial || len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "limits.CollectiveOps") || !strings.Contains(c.Notes[0], "200 collectives of 2 ranks left out") {
			t.Errorf("%s: %d instances, partial %v, notes %q", eng, len(c.Instances), c.Partial, c.Notes)
		}
		if md, _ := os.ReadFile(filepath.Join(out, "ranks_summary.md")); !bytes.Contains(md, []byte("limits.CollectiveOps")) {
			t.Errorf("%s: ranks_summary.md does not say what was left out", eng)
		}
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Errorf("collectives.json differs between the engines")
		}
	}
}

// Issue 24 (tools/hostile mr-pgcfg-many): each collective without a Process
// Group Name was named by scanning the whole pg_config, building every
// group's rank list again per collective (50 k groups and 50 k unnamed
// collectives per rank: 5.8 s CPU natively, 4.4 s with the lookup; the
// module's 1.3 GB there was matching's per-op cost, now limits.CollectiveOps).
// The lookup names groups as the scan did (the first group of a name or of
// a rank list), the same on both engines.
func TestHostilePGConfigMany(t *testing.T) {
	const n = 5000
	trace := func(rank int) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"distributedInfo":{"backend":"nccl","rank":%d,"world_size":2,"pg_config":[`, rank)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"pg_name":"pg%d","pg_desc":"d%d","ranks":[0,%d]}`, i, i, i+1)
		}
		b.WriteString(`]},"traceEvents":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":%d,"dur":3,"args":{"device":0,"stream":9,"Collective name":"allreduce","Process Group Ranks":"[0, %d]","Group size":2,"In msg nelems":1,"dtype":"BFloat16"}}`, 10+i*5+rank, i%50+1)
		}
		b.WriteString("]}")
		return b.Bytes()
	}
	var results [2][]byte
	for i, kind := range []string{"native", "wasm"} {
		var eng engine = &native{}
		if kind == "wasm" {
			eng = freshWasm(t)
		}
		o, _ := json.Marshal(analyzer.Options{Command: "breakdown"})
		if err := eng.Begin(o); err != nil {
			t.Fatal(err)
		}
		for r := range 2 {
			if err := push(eng, fmt.Sprintf("r%d.json", r), bytes.NewReader(trace(r)), nil); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
		}
		r, err := eng.Finish()
		if err != nil {
			t.Fatal(err)
		}
		results[i] = r.JSON()
		if !bytes.Contains(results[i], []byte(`pg49`)) || bytes.Contains(results[i], []byte(`ranks 0,50`)) {
			t.Errorf("%s: the groups are not named from pg_config", kind)
		}
	}
	if !bytes.Equal(results[0], results[1]) {
		t.Errorf("engines differ:\nnative %.600s\nwasm   %.600s", results[0], results[1])
	}
}

// Issue 24 (tools/hostile ranks-many, ranks-big): nothing bounded the bytes
// of all the rank summaries one ranks job reads (each was held to
// limits.RankSummaryBytes, a thousand of them were not). A summary that
// would take them past limits.RankSummariesBytes is not read: the input is
// a flagged partial naming the bound (exit 1), the others are matched, the
// same on both engines. The big summaries are mostly JSON whitespace:
// their bytes count, their decoding is cheap.
func TestBoundsRankSummariesTotal(t *testing.T) {
	dir := t.TempDir()
	summary := func(r int, pad int) []byte {
		b, _ := json.Marshal(map[string]any{"version": "gputriage.rank_summary/1", "file": fmt.Sprintf("r%d.json", r), "rank": r, "world_size": 3,
			"clock_base_ns": 0, "kernel_ns": 500, "comm_ns": 500, "exposed_comm_ns": 500, "busy_ns": 500, "window_ns": 1000, "steps": []any{},
			"ops": []any{map[string]any{"kind": "allreduce", "pg": "0", "seq": 0, "bytes": 1 << 20, "group_size": 3, "start_ns": 1000 + r*10, "end_ns": 1500, "launch_ns": -1, "stream": 9, "step": -1, "busy_ns": 0, "gpu_delay_ns": -1, "before": map[string]any{}}}})
		return append(b, bytes.Repeat([]byte(" "), pad)...)
	}
	// a and b fit (1 KB + 200 MiB), c's 60 MiB would take them past 256 MiB
	sizes := []int{0, limits.RankSummariesBytes - 56<<20, 60 << 20}
	for r, pad := range sizes {
		p := filepath.Join(dir, "in", string(rune('a'+r)), "rank_summary.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, summary(r, pad), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var first []byte
	for _, eng := range []string{"native", "wasm"} {
		out := filepath.Join(dir, eng)
		var so, se bytes.Buffer
		code := run([]string{"ranks", "--engine", eng, "-q", "-o", out, filepath.Join(dir, "in")}, nil, &so, &se)
		if code != 1 || !strings.Contains(se.String(), "limits.RankSummariesBytes") || !strings.Contains(se.String(), "c/rank_summary.json") {
			t.Fatalf("%s: exit %d, want 1 naming limits.RankSummariesBytes and the file left out: %s", eng, code, se.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "ranks.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rk struct {
			Ranks []struct {
				Rank int `json:"rank"`
			} `json:"ranks"`
		}
		json.Unmarshal(b, &rk)
		if len(rk.Ranks) != 2 || rk.Ranks[0].Rank != 0 || rk.Ranks[1].Rank != 1 {
			t.Errorf("%s: ranks %+v, want 0 and 1 (c not read)", eng, rk.Ranks)
		}
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Error("ranks.json differs between the engines")
		}
	}
}

// Issue 24: gputriage extract wrote every collective of the rank into
// rank_summary.json, while a reduce matches at most limits.CollectiveOps
// over the job. It keeps the rank's first limits.CollectiveOps in issue
// order, says partial in the summary and on the trace's row naming the
// bound (exit 1), the same bytes on both engines.
func TestBoundsExtractCollectiveOps(t *testing.T) {
	dir := t.TempDir()
	n := limits.CollectiveOps + 50
	var b bytes.Buffer
	b.WriteString(`{"distributedInfo":{"backend":"nccl","rank":0,"world_size":2},"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":9,"ts":%d,"dur":5,"args":{"device":0,"stream":9,"Process Group Name":"0","Group size":2,"In msg nelems":256,"dtype":"Float","Seq":%d}}`, 1000+i*10, i)
	}
	b.WriteString("]}")
	tr := filepath.Join(dir, "r0.json")
	if err := os.WriteFile(tr, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, eng := range []string{"native", "wasm"} {
		out := filepath.Join(dir, eng)
		var so, se bytes.Buffer
		code := run([]string{"extract", "--engine", eng, "-q", "-o", out, tr}, nil, &so, &se)
		if code != 1 || !strings.Contains(se.String(), "limits.CollectiveOps") || !strings.Contains(se.String(), "50 left out") {
			t.Fatalf("%s: exit %d, want 1 naming limits.CollectiveOps: %s", eng, code, se.String())
		}
		sb, err := os.ReadFile(filepath.Join(out, "rank_summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Partial bool              `json:"partial"`
			Ops     []json.RawMessage `json:"ops"`
		}
		json.Unmarshal(sb, &s)
		if len(s.Ops) != limits.CollectiveOps || !s.Partial {
			t.Errorf("%s: %d ops, partial %v; want %d, partial", eng, len(s.Ops), s.Partial, limits.CollectiveOps)
		}
		if first == nil {
			first = sb
		} else if !bytes.Equal(first, sb) {
			t.Error("rank_summary.json differs between the engines")
		}
	}
}

// Issue 24 (tools/hostile heat-2000x20): a folder of 2,000 rank traces
// wrote 2,000 artifact sets (175 MB; 121 s CPU under wasm). Only the lowest
// limits.RankDirs ranks get a ranks/<rank>/ folder; the rest are summarised:
// their line in the Per rank table and their rows in breakdown.json, which
// says how many, on both engines.
func TestBoundsRankDirs(t *testing.T) {
	n := limits.RankDirs + 3
	var names []string
	for r := range n {
		names = append(names, fmt.Sprintf("r%03d.json", r))
	}
	res, _ := bothRunFiles(t, analyzer.Options{Command: "breakdown"}, names, func(k int) io.Reader {
		b := hostileRank(k, 3, "")
		b = bytes.Replace(b, []byte(`"world_size":2`), []byte(fmt.Sprintf(`"world_size":%d`, n)), 1)
		return bytes.NewReader(b)
	})
	dirs := map[string]bool{}
	for _, a := range res.Artifacts {
		if d, _, ok := strings.Cut(strings.TrimPrefix(a.Name, "ranks/"), "/"); ok && strings.HasPrefix(a.Name, "ranks/") {
			dirs[d] = true
		}
	}
	if len(dirs) != limits.RankDirs || !dirs["0"] || !dirs[fmt.Sprint(limits.RankDirs-1)] || dirs[fmt.Sprint(limits.RankDirs)] {
		t.Errorf("%d rank folders: %v", len(dirs), dirs)
	}
	sum, _ := res.Artifact("profile_summary.md")
	if !strings.Contains(sum, "3 of 67 ranks are summarised") || !strings.Contains(sum, "| 66 | `r066.json` |") {
		t.Errorf("summary: %.2000s", sum[strings.Index(sum, "## Per rank"):])
	}
	var bd struct {
		Files []json.RawMessage `json:"files"`
		Ranks struct {
			Rows       []json.RawMessage `json:"rows"`
			Summarised int               `json:"summarised_ranks"`
		} `json:"ranks"`
	}
	text, _ := res.Artifact("breakdown.json")
	if err := json.Unmarshal([]byte(text), &bd); err != nil || len(bd.Files) != n || len(bd.Ranks.Rows) != n || bd.Ranks.Summarised != 3 {
		t.Errorf("%v: %d files, %d rank rows, %d summarised", err, len(bd.Files), len(bd.Ranks.Rows), bd.Ranks.Summarised)
	}
}
