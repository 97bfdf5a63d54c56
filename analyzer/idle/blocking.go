package idle

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Host calls that block on the device. The host thread inside one cannot
// submit work, so GPU idle time spent while it is there is the call's:
//
//   - device, stream and event synchronize (…Synchronize: waits by definition);
//   - freeing device or pinned host memory (hipFree, cudaFree, cuMemFree,
//     hipHostFree, cudaFreeHost, …Array): cudaFree "performs an implicit
//     device synchronization" (CUDA Runtime API, "API synchronization
//     behavior" and cudaFree); HIP's hipFree waits for the device the same
//     way (the 1,360 MIOpen workspace frees of the MI300X ResNet-18 trace,
//     ../shared/testdata/traces2/tracelens_mi300_resnet18, hold 98.9 % of
//     its GPU idle time);
//   - allocating device memory (hipMalloc, cudaMalloc, cuMemAlloc,
//     hipExtMallocWithFlags, …Pitch/3D/Array) and pinned host memory
//     (hipHostMalloc, hipHostAlloc, cudaHostAlloc, cudaMallocHost,
//     cuMemAllocHost, cuMemHostAlloc): they may wait for the device to
//     release or map memory;
//   - synchronous copies between host and device (hipMemcpy, cudaMemcpy,
//     cuMemcpyDtoH/HtoD, …WithStream, not …Async): device-to-host waits for
//     the copy, host-to-device from pageable memory syncs the stream first
//     (CUDA "API synchronization behavior"); device-to-device does not block.
//
// Stream-ordered variants (…Async: hipMallocAsync, cudaFreeAsync,
// hipMemcpyAsync) and managed allocations do not block and are left out.

// Sync kinds.
const (
	kindSync      = "synchronize"
	kindFree      = "free"
	kindMalloc    = "malloc"
	kindHostAlloc = "host-alloc"
	kindCopy      = "copy"
	kindItem      = "item"
)

// Copy directions of a memcpy op.
const (
	copyD2H uint8 = 1 + iota
	copyH2D
)

func copyDir(name string) uint8 {
	switch {
	case strings.Contains(name, "DtoH") || strings.Contains(name, "Device -> Host") || strings.Contains(name, "Device -> Pinned"):
		return copyD2H
	case strings.Contains(name, "HtoD") || strings.Contains(name, "Host -> Device") || strings.Contains(name, "Pinned -> Device"):
		return copyH2D
	}
	return 0
}

// apiRest is a runtime/driver call name without its API prefix (hip,
// cuda, cu), "" for other names.
func apiRest(name string) string {
	for _, p := range []string{"cuda", "hip", "cu"} {
		if r, ok := strings.CutPrefix(name, p); ok && r != "" && r[0] >= 'A' && r[0] <= 'Z' {
			return r
		}
	}
	return ""
}

// memKind is the blocking kind of an allocation or free call, "".
func memKind(name string) string {
	r := apiRest(name)
	if r == "" || strings.Contains(r, "Async") || strings.Contains(r, "Managed") {
		return ""
	}
	has := func(ps ...string) bool {
		for _, p := range ps {
			if strings.HasPrefix(r, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("Free", "MemFree", "HostFree"):
		return kindFree
	case has("HostMalloc", "HostAlloc", "MallocHost", "MemAllocHost", "MemHostAlloc"):
		return kindHostAlloc
	case has("Malloc", "MemAlloc", "ExtMallocWithFlags"):
		return kindMalloc
	}
	return ""
}

// blockingKind is the kind of a sync label.
func blockingKind(label string) string {
	switch {
	case strings.HasPrefix(label, ".item()"):
		return kindItem
	case strings.HasSuffix(label, ")") && strings.Contains(label, " copy ("):
		return kindCopy
	case strings.Contains(label, "Synchronize"):
		return kindSync
	}
	return memKind(label)
}

// nameLabels memoizes what syncLabel reads of a name (string searches)
// per name id: the names of consecutive spans repeat.
type nameLabels struct {
	class []uint8 // name id → 1 + label bits, 0 = not known yet
}

const (
	labelItem = 1 << iota // aten::_local_scalar_dense
	labelSync             // contains Synchronize
	labelCopy             // a synchronous Memcpy
	labelMem              // a blocking allocation or free
)

func (l *nameLabels) of(st *trace.Store, c *trace.Span, dir map[int64]uint8) string {
	id := c.Name
	for int(id) >= len(l.class) {
		l.class = append(l.class, make([]uint8, max(64, len(l.class)))...)
	}
	k := l.class[id]
	if k == 0 {
		name := st.Name(id)
		if name == "aten::_local_scalar_dense" {
			k |= labelItem
		}
		if strings.Contains(name, "Synchronize") {
			k |= labelSync
		}
		if strings.Contains(name, "Memcpy") && !strings.Contains(name, "Async") {
			k |= labelCopy
		}
		if memKind(name) != "" {
			k |= labelMem
		}
		k++
		l.class[id] = k
	}
	k--
	if k == 0 {
		return ""
	}
	return syncLabel(c, st.Name(id), dir)
}

// syncLabel names a host call that blocks on the device, or "".
func syncLabel(c *trace.Span, name string, dir map[int64]uint8) string {
	switch c.Kind {
	case trace.KindCPUOp:
		if name == "aten::_local_scalar_dense" {
			return ".item() (aten::_local_scalar_dense)"
		}
	case trace.KindRuntime, trace.KindDriver:
		switch {
		case strings.Contains(name, "Synchronize"):
			return name
		case strings.Contains(name, "Memcpy") && !strings.Contains(name, "Async"):
			switch dir[int64(c.File)<<48|c.Corr] {
			case copyD2H:
				return "D2H copy (" + name + ")"
			case copyH2D:
				return "H2D copy (" + name + ")"
			}
		case memKind(name) != "":
			return name
		}
	}
	return ""
}

// syncCaller keys a sync label's time by the CPU op it ran in.
type syncCaller struct {
	label  string
	caller string
}

// callerTime adds time of one sync span to its caller: GPU idle time
// (idle) or host time.
func (a *analyzer) callerTime(s syncSpan, v int64, idle bool) {
	name := ""
	if s.caller >= 0 {
		name = a.st.Name(a.st.CPU[s.caller].Name)
	}
	k := syncCaller{s.label, name}
	x := a.syncCallers[k]
	if x == nil {
		x = &[2]int64{}
		a.syncCallers[k] = x
	}
	if idle {
		x[0] += v
	} else {
		x[1] += v
	}
}

// callers fills each sync's Caller: the CPU op holding most of its idle
// time, else most of its host time (ties: the name).
func (a *analyzer) callers() {
	best := map[string][2]int64{}
	for k, v := range a.syncCallers {
		s := a.syncAcc[k.label]
		if s == nil || k.caller == "" {
			continue
		}
		b, ok := best[k.label]
		if !ok || v[0] > b[0] || v[0] == b[0] && (v[1] > b[1] || v[1] == b[1] && k.caller < s.Caller) {
			best[k.label] = *v
			s.Caller = k.caller
		}
	}
}

func frac(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}
