package main

import (
	"fmt"
	"sort"
)

// check verifies a planted job against its unplanted base: no kernel starts before its launch, no
// stream holds more overlapping ops than in the base (1 µs of rounding allowed), every instance's
// kernels overlap (transfer ≥ 0).
func check(j *job, base map[int]int) error {
	for r, t := range j.ranks {
		if n := overlaps(t); n > base[r] {
			return fmt.Errorf("rank %d: %d overlapping stream ops (base %d)", r, n, base[r])
		}
		launch := map[float64]*ev{}
		for _, e := range t.evs {
			if !e.gpu && (e.cat() == "cuda_runtime" || e.cat() == "cuda_driver") {
				if c, ok := e.argNum("correlation"); ok {
					launch[c] = e
				}
			}
		}
		for _, e := range t.evs {
			if e.gpu && e.cat() == "kernel" {
				if c, ok := e.argNum("correlation"); ok {
					if l := launch[c]; l != nil && e.ts < l.ts-1 {
						return fmt.Errorf("rank %d: kernel %.40s at %.3f before its launch at %.3f", r, e.name(), e.ts, l.ts)
					}
				}
			}
		}
	}
	for _, in := range j.instances() {
		if in.Transfer < 0 {
			return fmt.Errorf("%s: transfer %.3f < 0", in.id(), in.Transfer)
		}
	}
	return nil
}

func overlaps(t *rankTrace) int {
	type key struct{ pid, tid string }
	lanes := map[key][]*ev{}
	for _, e := range t.evs {
		if e.gpu && e.hasDur {
			switch e.cat() {
			case "kernel", "gpu_memcpy", "gpu_memset":
				k := key{fmt.Sprint(e.m["pid"]), fmt.Sprint(e.m["tid"])}
				lanes[k] = append(lanes[k], e)
			}
		}
	}
	n := 0
	for _, l := range lanes {
		sort.SliceStable(l, func(a, b int) bool { return l[a].ts < l[b].ts })
		for i := 1; i < len(l); i++ {
			if l[i].ts < l[i-1].end-1 {
				n++
			}
		}
	}
	return n
}
