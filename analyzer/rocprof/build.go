// Package rocprof reads the ROCm profilers' own outputs — rocprofv3 JSON
// and CSV, and the rows a host queried from a rocpd, RPD or rocprof-compute
// SQLite database (rows.go) — into the one event store, so every analysis
// reads them as it reads a Kineto trace.
//
// The mapping, the same for every format: a kernel dispatch is a KindKernel
// GPU op, a memory copy a KindMemcpy op (on the destination GPU, else the
// source), a HIP (or HSA) API call a KindRuntime span joined to its GPU work
// by correlation id. GPUOp.Device is the GPU's ordinal among the run's GPU
// agents (the HIP device index), Stream the HSA queue. Times stay the
// file's own nanoseconds.
package rocprof

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// builder turns a format's records into store records.
type builder struct {
	im  *trace.Importer
	src *trace.Source
	// gpu maps a format's agent key (handle, node id, logical id) to its
	// Device; unknown keys keep the key's own number.
	gpu map[int64]int64
}

func newBuilder(im *trace.Importer, format string) *builder {
	src := &trace.Source{Format: format}
	im.File().Source = src
	return &builder{im: im, src: src, gpu: map[int64]int64{}}
}

// agents sets the run's GPU agents, ordered by their device ordinal, and
// writes them as a Kineto-style deviceProperties header so the architecture
// verdict reads them as it reads a PyTorch trace's.
func (b *builder) agents(as []trace.Agent) {
	slices.SortFunc(as, func(x, y trace.Agent) int { return cmp.Compare(x.Device, y.Device) })
	b.src.Agents = as
	type dev struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		Arch     string `json:"gcnArchName,omitempty"`
		SMs      int64  `json:"numSms,omitempty"`
		Warp     int64  `json:"warpSize,omitempty"`
		TotalMem int64  `json:"totalGlobalMem,omitempty"`
	}
	var ds []dev
	for _, a := range as {
		name := a.Product
		if name == "" {
			name = a.Arch
		}
		ds = append(ds, dev{a.Device, name, a.Arch, a.CUs, a.Wave, a.MemB})
	}
	if len(ds) > 0 {
		raw, _ := json.Marshal(ds)
		b.im.File().Header["deviceProperties"] = raw
	}
}

// gpuOrdinals numbers GPU agents by logical node id when the format gives
// no type index (CSV): rocprofv3 numbers them the same way.
func gpuOrdinals(as []trace.Agent) {
	slices.SortFunc(as, func(x, y trace.Agent) int {
		if x.Logical != y.Logical {
			if x.Logical < y.Logical {
				return -1
			}
			return 1
		}
		return 0
	})
	for i := range as {
		as[i].Device = int64(i)
	}
}

// device returns the Device of an agent key.
func (b *builder) device(key int64) int64 {
	if d, ok := b.gpu[key]; ok {
		return d
	}
	return key
}

// kernel adds one dispatch.
func (b *builder) kernel(start, end, corr int64, name string, dev int64, queue int64) bool {
	return b.im.GPU(trace.GPUOp{TS: start, Dur: end - start, Corr: corr, Ext: trace.None,
		Name: b.im.Name(name), Track: b.im.Track(dev, queue), Device: dev, Stream: queue, Kind: trace.KindKernel})
}

// copy adds one memory copy.
func (b *builder) copy(start, end, corr int64, name string, dev int64, queue int64) bool {
	return b.im.GPU(trace.GPUOp{TS: start, Dur: end - start, Corr: corr, Ext: trace.None,
		Name: b.im.Name(name), Track: b.im.Track(dev, queue), Device: dev, Stream: queue, Kind: trace.KindMemcpy})
}

// api adds one host API call.
func (b *builder) api(start, end, corr int64, name string, pid, tid int64) bool {
	return b.im.CPU(trace.Span{TS: start, Dur: end - start, Corr: corr, Ext: trace.None,
		Name: b.im.Name(name), Track: b.im.Track(pid, tid), Kind: trace.KindRuntime})
}
