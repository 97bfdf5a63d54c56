package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Wave registers as address facts (seed 003 step 3: "back-trace the address
// from s_*/v_* registers; v[0:1] typically holds the destination address").
// The debug agent prints 32-bit halves: s[2k:2k+1] and, per lane,
// v[k:k+1] form 64-bit values. Every value that looks like a user-space
// address is kept, as a 4 KiB page, per kernel; the culprit rule
// (faultKernelByRegisters) names the kernel whose waves hold the faulting
// page when several kernels stopped at once.

var (
	reSRegCell = lazyre.New(`\bs(\d+): ([0-9a-fA-F]{8})\b`)
	reVRegHead = lazyre.New(`^\s*v(\d+): `)
	reVLane    = lazyre.New(`\[(\d+)\] ([0-9a-fA-F]{8})\b`)
	reWideCell = lazyre.New(`\b\w+: ([0-9a-fA-F]{16})\b`)
	reExecCell = lazyre.New(`\bexec: ([0-9a-fA-F]{16})\b`)
)

const (
	maxRegKernels = 32
	maxRegPages   = 4096
	minRegAddr    = 1 << 20 // below: indices, sizes, flags
)

// regReader pairs the 32-bit register halves of one wave.
type regReader struct {
	sregs    map[int]uint64
	vPrev    int
	vPrevVal map[int]uint64 // lane → low half of the previous vector register
	w        waveRegs       // every value, for the stop instruction (stopinsn.go)
}

func (r *regReader) reset() { *r = regReader{vPrev: -2} }

func (r *regReader) line(t, class string, emit func(uint64)) {
	for _, m := range reWideCell.FindAllStringSubmatch(t, -1) {
		if v, err := strconv.ParseUint(m[1], 16, 64); err == nil {
			emit(v)
		}
	}
	if m := reExecCell.FindStringSubmatch(t); m != nil {
		r.w.exec, _ = strconv.ParseUint(m[1], 16, 64)
		r.w.hasX = true
	}
	switch class {
	case "scalar":
		if r.sregs == nil {
			r.sregs = map[int]uint64{}
		}
		for _, m := range reSRegCell.FindAllStringSubmatch(t, -1) {
			n, v := atoiDef(m[1], -1), parseHex32(m[2])
			if n < 0 || len(r.sregs) > 128 {
				continue
			}
			r.sregs[n] = v
			r.w.setS(n, uint32(v))
			if n%2 == 1 {
				if lo, ok := r.sregs[n-1]; ok {
					emit(v<<32 | lo)
				}
			}
		}
	case "vector":
		h := reVRegHead.FindStringSubmatch(t)
		if h == nil {
			return
		}
		n := atoiDef(h[1], -1)
		lanes := map[int]uint64{}
		for _, m := range reVLane.FindAllStringSubmatch(t, -1) {
			lane, v := atoiDef(m[1], -1), parseHex32(m[2])
			lanes[lane] = v
			r.w.setV(n, lane, uint32(v))
		}
		if n == r.vPrev+1 && n%2 == 1 {
			for lane, hi := range lanes {
				if lo, ok := r.vPrevVal[lane]; ok {
					emit(hi<<32 | lo)
				}
			}
		}
		r.vPrev, r.vPrevVal = n, lanes
	}
}

func parseHex32(s string) uint64 {
	v, _ := strconv.ParseUint(s, 16, 32)
	return v
}

// regAddrs: kernel → pages held in its waves' registers (bounded).
type regAddrs struct {
	kernels []string
	pages   map[string]map[uint64]bool
}

func (r *regAddrs) add(kernel string, v uint64) {
	if v < minRegAddr || v>>48 != 0 {
		return
	}
	if r.pages == nil {
		r.pages = map[string]map[uint64]bool{}
	}
	ps := r.pages[kernel]
	if ps == nil {
		if len(r.kernels) >= maxRegKernels {
			return
		}
		ps = map[uint64]bool{}
		r.pages[kernel] = ps
		r.kernels = append(r.kernels, kernel)
	}
	if len(ps) < maxRegPages {
		ps[v&^0xfff] = true
	}
}

// holding lists the kernels whose registers hold the page of addr, in the
// order the kernels appeared.
func (r *regAddrs) holding(addr string) []string {
	v, ok := addrValue(addr)
	if !ok || v < minRegAddr {
		return nil
	}
	var out []string
	for _, k := range r.kernels {
		if r.pages[k][v&^0xfff] {
			out = append(out, k)
		}
	}
	return out
}

// faultKernelByRegisters is the culprit rule for a memory fault whose waves
// stopped in several kernels: the wave registers that hold the faulting page
// name the kernel that made the access; the first kernel in the file does
// not. It needs the fault address and register facts; it is defeated when
// no kernel, or more than one, holds the page.
func faultKernelByRegisters(a *agg, facts *facts) {
	if a.f.Class != ClassGPUMemoryFault || a.f.Address == "" || len(facts.regAddrs.kernels) < 2 {
		return
	}
	hold := facts.regAddrs.holding(a.f.Address)
	if len(hold) != 1 {
		return
	}
	k := hold[0]
	name, _ := demangleName(k)
	if name != a.f.Kernel && !strings.Contains(a.f.Kernel, name) {
		a.note("the wave registers of " + shortKernel(name) + " hold the faulting page " + a.f.Address + ": it made the access (" + shortKernel(a.f.Kernel) + " stopped too, without that address)")
	}
	a.kernelPrio = 0
	a.setKernel(k, "rocm-debug-agent wave registers holding the fault address", 95)
	a.detail("kernel_by_registers", "wave registers hold the fault page "+a.f.Address)
}
