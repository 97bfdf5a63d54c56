package report

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"

	"github.com/gputriage/gputriage/analyzer/kernels"
)

// SpansMagic opens the Spans encoding (version 1).
const SpansMagic = "GTS1"

// Spans encodes every GPU op of the analysed trace files as an interval —
// the page's zoomable timeline draws single kernels from it (not an
// artifact: the page asks the module for it after finish, docs/abi.md).
// Binary, little endian, 20 bytes per op so a 1 M-kernel trace is 20 MB:
//
//	"GTS1" | u32 header length | header JSON | zero pad to 8 |
//	f64 start_us[N] | f64 dur_us[N] | u32 name[N]
//
// header: {"files":[{"file","lanes":[{"device","stream","first","count"}]}],
// "names":[…], "categories":[…], "steps":[{"file","stage","name","start_us",
// "dur_us"}]} (categories[i] is names[i]'s, as the breakdown classifies it;
// steps: idle.json's every step window). A lane is one (device, stream) of a file, in
// device then stream order, its ops at first…first+count-1 sorted by start
// (then end, then trace order); start is µs since the file's first GPU op,
// the 0 of gpu_lanes.json.
func Spans(a *Analysis) []byte {
	type lane struct {
		Device int64 `json:"device"`
		Stream int64 `json:"stream"`
		First  int   `json:"first"`
		Count  int   `json:"count"`
	}
	type file struct {
		File  string `json:"file"`
		Lanes []lane `json:"lanes"`
	}
	type step struct {
		File  string  `json:"file"`
		Stage string  `json:"stage"`
		Name  string  `json:"name"`
		Start float64 `json:"start_us"`
		Dur   float64 `json:"dur_us"`
	}
	head := struct {
		Files      []file   `json:"files"`
		Names      []string `json:"names"`
		Categories []string `json:"categories"`
		Steps      []step   `json:"steps"`
	}{Files: []file{}, Names: []string{}, Categories: []string{}, Steps: []step{}}
	firstOf := map[string]int64{} // file name → its first GPU op's start
	st := a.Store
	type key struct{ d, s int64 }
	type run struct {
		first int64
		ops   []int32 // op indices, sorted
	}
	var runs []run // lane by lane, file by file
	dense := map[uint32]uint32{}
	n := 0
	for _, fi := range a.TraceFiles {
		f := file{File: st.Files[fi].Name, Lanes: []lane{}}
		first := int64(math.MaxInt64)
		byLane := map[key][]int32{}
		for i := range st.GPU {
			o := &st.GPU[i]
			if int(o.File) != fi || !o.Kind.IsGPUWork() {
				continue
			}
			first = min(first, o.TS)
			k := key{o.Device, o.Stream}
			byLane[k] = append(byLane[k], int32(i))
			if _, ok := dense[o.Name]; !ok {
				dense[o.Name] = uint32(len(head.Names))
				name := st.Name(o.Name)
				head.Names = append(head.Names, name)
				head.Categories = append(head.Categories, kernels.Classify(name, o.Kind.String()).Category)
			}
		}
		keys := make([]key, 0, len(byLane))
		for k := range byLane {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y key) int { return cmpKey(x.d, x.s, y.d, y.s) })
		for _, k := range keys {
			ops := byLane[k]
			slices.SortFunc(ops, func(x, y int32) int {
				ox, oy := &st.GPU[x], &st.GPU[y]
				if c := cmp.Compare(ox.TS, oy.TS); c != 0 {
					return c
				}
				if c := cmp.Compare(ox.End(), oy.End()); c != 0 {
					return c
				}
				return cmp.Compare(x, y)
			})
			f.Lanes = append(f.Lanes, lane{Device: k.d, Stream: k.s, First: n, Count: len(ops)})
			runs = append(runs, run{first, ops})
			n += len(ops)
		}
		head.Files = append(head.Files, f)
		if first != math.MaxInt64 {
			firstOf[f.File] = first
		}
	}
	// Every step window (idle.json's, all of them), placed on its file's
	// timeline: the page's step selector zooms to one.
	if a.Idle != nil {
		for _, w := range a.Idle.Every {
			first, ok := firstOf[w.File]
			if !ok {
				continue
			}
			head.Steps = append(head.Steps, step{File: w.File, Stage: w.Stage, Name: w.Name,
				Start: float64(w.Start-first) / 1e3, Dur: float64(w.Window) / 1e3})
		}
	}
	hj, _ := json.Marshal(head) // strings and ints only: cannot fail
	pre := 8 + len(hj)
	pre += (8 - pre%8) % 8
	// One buffer of the exact size, filled in place: no per-column copies.
	out := make([]byte, pre+n*20)
	copy(out, SpansMagic)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(hj)))
	copy(out[8:], hj)
	le := binary.LittleEndian
	j := 0
	for _, r := range runs {
		for _, i := range r.ops {
			o := &st.GPU[i]
			le.PutUint64(out[pre+8*j:], math.Float64bits(float64(o.TS-r.first)/1e3))
			le.PutUint64(out[pre+8*(n+j):], math.Float64bits(float64(o.Dur)/1e3))
			le.PutUint32(out[pre+16*n+4*j:], dense[o.Name])
			j++
		}
	}
	return out
}
