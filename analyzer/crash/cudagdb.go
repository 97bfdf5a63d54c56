package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// cuda-gdb attached to a hung process (NVIDIA's counterpart of seed 003's
// rocgdb dump): "info cuda kernels" lists the kernel as Active with no CUDA
// exception, "info cuda threads" shows how many threads sit at one virtual
// PC. Read by the incident parser, turned into gpu_kernel_hang by
// cudaHang at assembly time.

type cudaHangFacts struct {
	kernels []cudaKernel
	threads []cudaThreads // info cuda threads rows
	inRows  bool
	rowLine int
	ev      []Evidence
}

type cudaKernel struct {
	id, status, grid, block, name string
	invocation                    string // the Invocation column as printed
	ev                            Evidence
}

type cudaThreads struct {
	count     int
	pc, where string
	from, to  string // block/thread ranges
}

var (
	reCudaKernelRow = lazyre.New(`^\*?\s*(\d+)\s+(?:-|\d+)\s+(\d+)\s+(\d+)\s+(\w+)\s+(0x[0-9a-fA-F]+)\s+(\([\d,]+\))\s+(\([\d,]+\))\s+(\S.*)$`)
	reCudaThreadRow = lazyre.New(`^\*?\s*(\([\d,]+\))\s+(\([\d,]+\))\s+(\([\d,]+\))\s+(\([\d,]+\))\s+(\d+)\s+(0x[0-9a-fA-F]+)(?:\s+(\S+)\s+(\d+))?\s*$`)
)

// cudaKernelStates: the kernel states an attach's table is read for.
var cudaKernelStates = map[string]bool{"Active": true, "Terminated": true, "Sleeping": true, "Pending": true}

// extractCudaKernelRow: one "info cuda kernels" row; the name is cut at
// its argument list. ev is left for the caller.
func extractCudaKernelRow(t string) (cudaKernel, bool) {
	m := reCudaKernelRow.FindStringSubmatch(t)
	if m == nil {
		return cudaKernel{}, false
	}
	name := strings.TrimSpace(m[8])
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	return cudaKernel{id: m[1], status: m[4], grid: m[6], block: m[7], name: name, invocation: m[8]}, true
}

// extractCudaThreadRow: one "info cuda threads" row — a block/thread range,
// how many threads sit at its virtual PC, and file:line when printed.
func extractCudaThreadRow(t string) (cudaThreads, bool) {
	m := reCudaThreadRow.FindStringSubmatch(t)
	if m == nil {
		return cudaThreads{}, false
	}
	w := ""
	if m[7] != "" {
		w = m[7] + ":" + m[8]
	}
	return cudaThreads{count: atoiDef(m[5], 0), pc: normPC(m[6]), where: w, from: m[1] + m[2], to: m[3] + m[4]}, true
}

// cudaLine reads cuda-gdb kernel and thread tables; true when consumed.
func (p *incidentParser) cudaLine(l *line) bool {
	t := l.text
	s := p.s
	c := &s.b.facts.inc.cuda
	if strings.Contains(t, "Virtual PC") {
		c.inRows, c.rowLine = true, l.no
		return true
	}
	if k, ok := extractCudaKernelRow(t); ok && cudaKernelStates[k.status] {
		if len(c.kernels) < 64 {
			k.ev = l.ev(s)
			c.kernels = append(c.kernels, k)
		}
		return true
	}
	if c.inRows && l.no-c.rowLine <= 64 {
		if r, ok := extractCudaThreadRow(t); ok {
			c.rowLine = l.no
			if len(c.threads) < 256 {
				c.threads = append(c.threads, r)
				if len(c.ev) < 4 {
					c.ev = append(c.ev, l.ev(s))
				}
			}
			return true
		}
	}
	return false
}

// cudaHang: an Active kernel in a cuda-gdb attach without any CUDA
// exception is a kernel that does not finish.
func (b *builder) cudaHang(s *Session, work map[string]*agg) {
	c := &b.facts.inc.cuda
	var active *cudaKernel
	for i := range c.kernels {
		if c.kernels[i].status == "Active" {
			active = &c.kernels[i]
			break
		}
	}
	if active == nil {
		return
	}
	for _, cl := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction} {
		if work[cl] != nil {
			return
		}
	}
	a := work[ClassGPUKernelHang]
	if a == nil {
		a = newAgg(ClassGPUKernelHang, 0)
		work[ClassGPUKernelHang] = a
	}
	a.f.Count++
	a.strong = true
	a.evidence(active.ev)
	a.setKernel(active.name, "cuda-gdb info cuda kernels (Active, no CUDA exception)", 70)
	a.addReason("cuda-gdb shows the kernel still Active with no CUDA exception: it never completes")
	a.detail("stuck_kernel", active.name)
	a.detail("cuda_grid", active.grid)
	a.detail("cuda_block_dim", active.block)
	conf := 0.6
	total, best := 0, -1
	for i, r := range c.threads {
		total += r.count
		if best < 0 || r.count > c.threads[best].count {
			best = i
		}
	}
	h := a.f.Hang
	if h == nil {
		h = &HangEvidence{Progress: "single_dump"}
	}
	if best >= 0 {
		r := c.threads[best]
		g := WaveGroup{PC: r.pc, Location: r.where, Kernel: active.name, Waves: r.count}
		h.WaveGroups = append(h.WaveGroups, g)
		desc := strconv.Itoa(r.count) + " of " + strconv.Itoa(total) + " threads of " + shortKernel(active.name) + " at " + r.pc
		if r.where != "" {
			desc += " (" + r.where + ")"
		}
		a.detail("pc_group", desc)
		for _, e := range c.ev {
			a.evidence(e)
		}
		if r.count*10 >= total*8 {
			conf = 0.75
			a.note(desc + ": the threads spin at one PC — a wait loop (flag / barrier / atomic counter) that is never satisfied; map the PC to the source line before forming a theory")
		}
	}
	if conf > a.conf {
		a.conf = conf
	}
	a.f.Hang = h
}

// cuda-gdb's stop: "CUDA Exception: Warp Illegal Address" /
// "CUDA_EXCEPTION_14, Warp Illegal Address.", the focus switch to the
// faulting thread, a "kernel<<<(g),(b)>>>" frame, an "info cuda kernels" row.
type cudaGdbLine struct {
	kind                  string // exception | focus | frame | kernel
	what                  string // exception: "Warp Illegal Address"
	block, thread, device string // focus: "x,y,z" as printed, device number
	kernel                string // frame / kernel row: the kernel as printed
	active                bool   // kernel row: state Active
}

var (
	reCudaExc   = lazyre.New(`(?:CUDA Exception: |CUDA_EXCEPTION_\d+, )((?:Warp|Lane|Device) [A-Za-z -]+?)\.?\s*$`)
	reCudaFocus = lazyre.New(`\[Switching focus to CUDA kernel (\d+), grid (\d+), block \(([\d,]+)\), thread \(([\d,]+)\), device (\d+), sm (\d+), warp (\d+), lane (\d+)\]`)
	reCudaFrame = lazyre.New(`^(?:#\d+\s+)?(?:0x[0-9a-fA-F]+ in )?(\S+)<<<\(([\d,]+)\),\(([\d,]+)\)>>>`)
)

func extractCudaGdbLine(t string) (cudaGdbLine, bool) {
	if m := reCudaExc.FindStringSubmatch(t); m != nil {
		return cudaGdbLine{kind: "exception", what: m[1]}, true
	}
	if m := reCudaFocus.FindStringSubmatch(t); m != nil {
		return cudaGdbLine{kind: "focus", block: m[3], thread: m[4], device: m[5]}, true
	}
	if m := reCudaFrame.FindStringSubmatch(t); m != nil {
		return cudaGdbLine{kind: "frame", kernel: m[1]}, true
	}
	if k, ok := extractCudaKernelRow(t); ok {
		return cudaGdbLine{kind: "kernel", kernel: k.invocation, active: k.status == "Active"}, true
	}
	return cudaGdbLine{}, false
}

func cudaExceptionClass(what string) string {
	switch {
	case strings.Contains(what, "Assert"):
		return ClassDeviceAssert
	case strings.Contains(what, "Illegal Instruction"), strings.Contains(what, "Invalid PC"):
		return ClassIllegalInstruction
	case strings.Contains(what, "Address"), strings.Contains(what, "Misaligned"), strings.Contains(what, "Out-of-range"), strings.Contains(what, "Stack Overflow"):
		return ClassGPUMemoryFault
	}
	return ""
}

// cudaGdbStop rules on a cuda-gdb stop fact: an exception is its class
// (strong: the debugger saw it); the focus line places the fault (block,
// thread, device) on the finding already made; frames and active kernel
// rows name the kernel.
func (s *Session) cudaGdbStop(l *line, x cudaGdbLine) {
	switch x.kind {
	case "exception":
		if c := cudaExceptionClass(x.what); c != "" {
			s.format("cuda_gdb")
			a := s.b.add(s, c, l, 0.85)
			a.strong = true
			a.addReason("CUDA exception: " + x.what)
		}
	case "focus":
		s.format("cuda_gdb")
		for _, c := range []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction} {
			if a := s.b.get(c); a != nil {
				a.evidence(l.ev(s))
				a.detail("cuda_block", "("+x.block+")")
				a.detail("cuda_thread", "("+x.thread+")")
				a.detail("cuda_device", x.device)
				break
			}
		}
	case "frame":
		s.kernelHint(x.kernel, "cuda-gdb frame", 70, l)
	case "kernel":
		s.format("cuda_gdb_info_kernels")
		if x.active {
			s.kernelHint(x.kernel, "cuda-gdb info cuda kernels (active)", 60, l)
		}
	}
}
