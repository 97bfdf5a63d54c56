package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
