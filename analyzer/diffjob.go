package analyzer

import (
	"fmt"

	"github.com/gputriage/gputriage/analyzer/diff"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// diff compares run A (the first trace pushed) with run B. A refusal (the
// runs are not comparable) is an answer, stated in both artifacts.
func (j *Job) diff(stores []*trace.Store) ([]Artifact, error) {
	if len(stores) != 2 {
		return nil, fmt.Errorf("diff needs exactly two traces (run A, then run B), got %d", len(stores))
	}
	var sides [2]diff.Side
	for i, st := range stores {
		a := j.analyzeTraces(st, allFiles(st), nil)
		id := j.opts.Compare[i]
		sides[i] = diff.Side{Name: st.Files[0].Name, Store: st, Breakdown: a.Breakdown,
			ObservedArch: a.Arch.ObservedArch, ArchMatch: a.Arch.ArchMatch, DeviceName: a.Arch.DeviceName,
			BaseImage: id.BaseImage, ResourceClass: id.ResourceClass, ServerFlags: id.ServerFlags,
			BenchmarkConfigHash: id.BenchmarkConfigHash, GPUDeviceIDs: id.GPUDeviceIDs}
		if sides[i].GPUDeviceIDs == nil {
			sides[i].GPUDeviceIDs = a.DeviceIDs
		}
	}
	r := diff.Compare(sides[0], sides[1], diff.Options{Force: j.opts.Force})
	return []Artifact{{"diff.md", string(r.Markdown())}, {"diff.json", string(r.JSON())}}, nil
}
