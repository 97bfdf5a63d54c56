package plantstraggler4

import (
	"fmt"
	"sort"
)

// Check reads planted rank files and lists what a real trace could not hold: ops of one
// stream overlapping (by more than Kineto's own 1 µs rounding), a GPU op starting before its
// launch call, an instance whose kernels do not overlap on every rank (transfer < 0) once the
// planted clock offsets (ns per file) are taken off.
func Check(files []string, clock []int64) []string {
	var errs []string
	var ts []*Trace
	for _, f := range files {
		t, err := LoadTrace(f)
		if err != nil {
			return []string{err.Error()}
		}
		ts = append(ts, t)
		launch := map[int64]int64{}
		for _, e := range t.Events {
			if isRuntime(e) {
				if c, ok := argInt(e, "correlation"); ok {
					launch[c], _ = ns(e, "ts")
				}
			}
		}
		streams := map[string][][2]int64{}
		for _, e := range t.Events {
			if !isGPUOp(e) || str(e, "ph") != "X" {
				continue
			}
			s, _ := ns(e, "ts")
			d, _ := ns(e, "dur")
			if d < 0 {
				errs = append(errs, fmt.Sprintf("%s: %s at %d: negative duration", f, str(e, "name"), s))
			}
			sid, _ := argInt(e, "stream")
			streams[fmt.Sprint(sid)] = append(streams[fmt.Sprint(sid)], [2]int64{s, s + d})
			if c, ok := argInt(e, "correlation"); ok {
				if l, ok := launch[c]; ok && s < l {
					errs = append(errs, fmt.Sprintf("%s: %s at %d starts before its launch at %d", f, str(e, "name"), s, l))
				}
			}
		}
		for sid, iv := range streams {
			sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
			for i := 1; i < len(iv); i++ {
				if iv[i][0] < iv[i-1][1]-1000 {
					errs = append(errs, fmt.Sprintf("%s: stream %s: op at %d overlaps the one ending %d", f, sid, iv[i][0], iv[i-1][1]))
				}
			}
		}
	}
	for _, k := range KeyOf(ts, make([]int, len(ts)), clock) {
		if k.TransferUS < 0 {
			errs = append(errs, fmt.Sprintf("%s #%d: transfer %.3f µs < 0", k.Kind, k.Index, k.TransferUS))
		}
	}
	return errs
}
