package crash

import (
	"strconv"
	"strings"
)

// launchParser reads application launch-failure messages and device limits
// (seed 002 / fx08 wording, MIOpen) and checks launch configurations against
// the device limits (docs section 6).
type launchParser struct{ s *Session }

// deviceLimits defaults: AMD CDNA/RDNA (rocminfo) — 1024 threads per
// workgroup, 1024 per dimension, 2^32-1 work-items per grid dimension,
// 64 KiB LDS per workgroup.
type deviceLimits struct {
	maxThreads int64
	maxDim     [3]int64
	maxGrid    int64
	lds        int64
	fromLog    bool
	dimBug     string // the driver's maxThreadsDim has a zero dimension (seed 002's driver bug)
	dimBugEv   Evidence
}

func defaultLimits() deviceLimits {
	return deviceLimits{maxThreads: 1024, maxDim: [3]int64{1024, 1024, 1024}, maxGrid: 4294967295, lds: 65536}
}

func (p *launchParser) beginFile(*Session) {}
func (p *launchParser) endFile()           {}

func atoi64(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func (p *launchParser) line(l *line) {
	t := l.text
	if m := extractModulePath(t); m != "" {
		p.s.lastModule, p.s.lastModuleEv = m, l.ev(p.s)
	}
	if k := extractMIOpenPrepared(t); k != "" { // miopenkernel.go
		p.s.noteMIOpenKernel(l, k)
		return
	}
	if !containsAny(t, launchGate...) {
		return
	}
	s := p.s
	// read before the thread limits: one "Device limits:" line may carry
	// both (an LDS limit left at 64 KiB turned gfx950's legal 128 KiB into a
	// violation, crash-heldout3 e26)
	if v := extractLDSLimit(t); v > 0 {
		s.limits.lds, s.b.facts.ldsLog = v, v
	}
	switch {
	case strings.Contains(t, "maxThreadsPerBlock") || strings.Contains(t, "maxThreadsDim"):
		s.applyThreadLimits(l, extractThreadLimits(t))
		return
	case strings.Contains(t, "Workgroup Max Size"):
		if v := extractWGMax(t); v > 0 {
			s.limits.maxThreads, s.limits.fromLog = v, true
		}
		return
	}
	if r, ok := extractSmemAttr(t); ok { // smemattr.go
		s.smemAttrRequest(l, r)
		return
	}
	if f, ok := extractLaunchBounds(t); ok { // launchbounds.go
		s.launchBoundsExceeded(l, f)
		return
	}
	if x, ok := extractXLALaunch(t); ok {
		s.xlaLaunchRefused(l, x)
		return
	}
	if f := extractLaunchFailure(t); f.kind != lfNone {
		f.cfg.ev = l.ev(s)
		s.launchFailure(l, f)
	}
}

// applyThreadLimits takes the device's thread limits. A zero maxThreadsDim
// entry is seed 002's driver bug: alone it is no failure (the seed's tests
// "detect this condition and skip"), it explains a launch failure of the
// session (dimBugFinding).
func (s *Session) applyThreadLimits(l *line, tl threadLimits) {
	if tl.maxThreads > 0 {
		s.limits.maxThreads, s.limits.fromLog = tl.maxThreads, true
	}
	if !tl.hasDim {
		return
	}
	d := tl.dim
	s.limits.maxDim = d
	if d[0] == 0 || d[1] == 0 || d[2] == 0 {
		// seed 002: the HIP driver reports maxThreadsDim[1..2] as 0;
		// no launch is "within limits" against such numbers
		s.limits.dimBug = "maxThreadsDim=[" + tl.dimText[0] + ", " + tl.dimText[1] + ", " + tl.dimText[2] + "]"
		s.limits.dimBugEv = l.ev(s)
	}
}

// dimBugFinding attaches the driver's zero maxThreadsDim to the session's
// launch failure: the failure may rest on a check against those numbers.
func dimBugFinding(lim deviceLimits, work map[string]*agg) {
	a := work[ClassInvalidLaunch]
	if lim.dimBug == "" || a == nil {
		return
	}
	bug := "the driver reports " + lim.dimBug + ": a HIP driver bug (zero-sized thread dimensions), not a real limit"
	a.detail("driver_limits_bug", bug)
	if a.f.HIPError == "" {
		a.addReason(bug) // the failure's own error, when named, stays its reason
	}
	a.evidence(lim.dimBugEv)
	a.note("launch-limit checks against these device limits are meaningless: every block with y or z > 1 would fail them; query hipDeviceProp_t again or rely on maxThreadsPerBlock and the documented 1024 per dimension")
}

// launchFailure rules on one launch-failure fact: the class its error
// names, and its geometry against the device limits (checkLaunch).
func (s *Session) launchFailure(l *line, f launchFact) {
	switch f.kind {
	case lfLaunchFailed:
		s.format("app_launch_failure")
		e := lookupHIPName(f.err)
		a := s.b.add(s, ClassInvalidLaunch, l, 0.8)
		if e != nil {
			if e.class != "" && e.class != ClassInvalidLaunch && e.name != "hipErrorInvalidValue" {
				// the launch itself failed for another reason (e.g. no code object)
				b := s.b.add(s, e.class, l, 0.8)
				b.setHIP(e)
				b.setKernel(f.kernel, "application launch-failure message", 80)
			}
			a.setHIP(e)
		}
		a.setKernel(f.kernel, "application launch-failure message", 80)
		if f.cfg.set {
			s.checkLaunch(a, f.cfg)
		}
	case lfLaunchLog:
		s.format("app_launch_log")
		lc := f.cfg
		s.lastLaunch = lc
		if v := s.launchViolations(lc); len(v) > 0 {
			a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
			a.setKernel(lc.kernel, "launch log", 60)
			s.checkLaunch(a, lc)
		}
	case lfSharedExceeds:
		a := s.b.add(s, ClassInvalidLaunch, l, 0.75)
		s.b.facts.ldsLog = atoi64(f.sharedLimit)
		a.note("dynamic shared memory (LDS) " + f.sharedBytes + " bytes exceeds the per-workgroup limit " + f.sharedLimit)
		if lc := s.lastLaunch; lc.kernel != "" && lc.shared == atoi64(f.sharedBytes) {
			a.setKernel(lc.kernel, "launch log (the rejected shared memory)", 60)
		}
	case lfGridInvalid:
		a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
		a.note("grid." + f.axis + " = " + f.value + " rejected by the application's check (limit " + f.lo + ".." + f.hi + ")")
		// seed 002's debug "Launch: kernel=…, grid=(x,y,z)" line before the
		// check names the kernel when its grid on that axis is the rejected value
		if i := strings.Index("xyz", f.axis); i >= 0 && len(f.axis) == 1 && s.lastLaunch.kernel != "" && s.lastLaunch.grid[i] == atoi64(f.value) {
			a.setKernel(s.lastLaunch.kernel, "launch log (the rejected grid)", 60)
		}
	case lfLoadFailed:
		s.kernelLoadFailed(l, f)
	case lfSyncFailed:
		s.kernelHint(f.kernel, "application sync-after-launch check", 75, l)
		// a device sync after every launch is what HIP_LAUNCH_BLOCKING=1 /
		// AMD_SERIALIZE_KERNEL=3 would add: the launches are serialized already
		s.b.facts.launchBlocking = true
		// "failed after kernel 'X': hipErrorY" names X as the kernel that failed
		if e := lookupHIPName(f.err); e != nil && e.class != "" {
			a := s.b.add(s, e.class, l, 0.75)
			a.setHIP(e)
			a.setKernel(f.kernel, "application: device synchronization failed after this kernel", 75)
			a.strong = true
		}
	case lfAsyncHIP:
		if e := lookupHIPCode(f.code); e != nil && e.class != "" {
			a := s.b.add(s, e.class, l, 0.6)
			a.setHIP(e)
			if k := s.lastLaunch.kernel; k != "" {
				// asynchronous: detected after this launch, raised by it or
				// by any kernel before it on the stream
				a.evidence(s.lastLaunch.ev)
				a.detail("launched_before_error", k)
				a.note("the error was detected after the launch of " + shortKernel(k) + ": the suspect, but an asynchronous error may come from any earlier kernel")
			}
		}
	case lfResources:
		a := s.b.add(s, ClassInvalidLaunch, l, 0.75)
		switch f.resource {
		case "invalid configuration argument":
			a.setHIP(lookupHIPName("hipErrorInvalidConfiguration"))
		case "too many resources requested":
			a.setHIP(lookupHIPName("hipErrorLaunchOutOfResources"))
		case "scratch_size overflow":
			a.note("scratch (private segment) size overflow: the kernel needs more scratch than the runtime can map")
		case vgprOutOf, vgprOverHW:
			a.detail("vgpr_budget", "exceeded")
			a.addReason("the work-group needs more VGPRs than a compute unit holds at this work-group size")
			a.setKernel(f.kernel, "HCC launch error", 70)
		}
		if f.miopen {
			a.detail("source", "MIOpen")
		}
	case lfRefusedValue:
		// less sure: invalid-value also covers a bad argument pointer, not
		// only values past the device's limits
		a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
		if strings.Contains(strings.ToLower(f.err), "hip") {
			a.setHIP(lookupHIPName("hipErrorInvalidValue"))
		}
		a.addReason("the runtime refused the launch's values (" + f.err + "): the grid, block, shared memory or arguments against the device's limits")
	}
}

// vgprExplainsISA: HCC reported an Out-of-VGPRs queue error as
// HSA_STATUS_ERROR_INVALID_ISA (0x100f) ("pretty misleading", ROCm/hip#1185):
// with the VGPR verdict in hand, an arch_mismatch that rests on that status
// alone is its echo, not a wrong code object.
func vgprExplainsISA(work map[string]*agg) {
	il, am := work[ClassInvalidLaunch], work[ClassArchMismatch]
	if il == nil || am == nil || il.details["vgpr_budget"] == "" || !strings.Contains(am.f.HSAStatus, "INVALID_ISA") || am.f.Kernel != "" {
		return
	}
	il.note("the runtime's " + am.f.HSAStatus + " is how the Out-of-VGPRs queue error surfaced, not a code object for another gfx target")
	for _, e := range am.evFirst {
		il.evidence(e)
	}
	delete(work, ClassArchMismatch)
}

// kernelLoadFailed: hipErrorNotFound while loading means the kernel's code
// object or symbol is missing and the launch never ran (seed 002 "Kernel
// Not Found"); other load errors are an architecture mismatch.
func (s *Session) kernelLoadFailed(l *line, f launchFact) {
	e := lookupHIPName(f.err)
	if e != nil && e.name == "hipErrorNotFound" {
		if a := s.b.get(ClassInvalidLaunch); a != nil && a.f.HIPError != "" {
			// a launch failure is the primary evidence; the load error goes with it
			a.evidence(l.ev(s))
			a.note("also: kernel loading failed with hipErrorNotFound (named symbol not found: HSACO path or kernel name mismatch)")
			return
		}
		a := s.b.add(s, ClassKernelNotFound, l, 0.8)
		a.setHIP(e)
		a.strong = true
		a.addReason("kernel loading failed with hipErrorNotFound: the HSACO file was not found or has no symbol of that kernel name")
		if s.lastModule != "" {
			a.evidence(s.lastModuleEv)
			a.detail("module", s.lastModule)
			mod := s.lastModule[strings.LastIndexByte(s.lastModule, '/')+1:]
			a.setKernel(strings.TrimSuffix(strings.TrimSuffix(mod, ".hsaco"), ".co"), "code object being loaded", 50)
		}
	} else if e != nil {
		a := s.b.add(s, ClassArchMismatch, l, 0.5)
		a.setHIP(e)
		a.addReason("kernel loading failed with " + e.name)
	}
}

// launchViolations checks a launch configuration against the limits.
func (s *Session) launchViolations(lc launchConfig) []string {
	lim := s.limits
	var v []string
	threads := lc.block[0] * lc.block[1] * lc.block[2]
	if threads > lim.maxThreads {
		v = append(v, "block "+dims(lc.block)+" = "+strconv.FormatInt(threads, 10)+" threads > maxThreadsPerBlock "+strconv.FormatInt(lim.maxThreads, 10))
	}
	for i, n := range lc.block {
		if n == 0 || lc.grid[i] == 0 {
			v = append(v, "zero-sized dimension "+string("xyz"[i])+" (grid "+dims(lc.grid)+", block "+dims(lc.block)+")")
			break
		}
		if lim.maxDim[i] == 0 && n > 1 && lim.dimBug != "" {
			v = append(v, "block."+string("xyz"[i])+" = "+strconv.FormatInt(n, 10)+" against the driver's reported max 0 ("+lim.dimBug+": the driver bug, not the hardware limit)")
		}
		if lim.maxDim[i] > 0 && n > lim.maxDim[i] {
			v = append(v, "block."+string("xyz"[i])+" = "+strconv.FormatInt(n, 10)+" > max "+strconv.FormatInt(lim.maxDim[i], 10))
		}
		if lc.grid[i] > 0 && n > 0 && lc.grid[i] > lim.maxGrid/n {
			v = append(v, "grid."+string("xyz"[i])+" × block."+string("xyz"[i])+" exceeds 2^32-1 work-items")
		}
	}
	if lds := s.ldsLimit(); lc.shared > lds {
		v = append(v, "dynamic LDS "+strconv.FormatInt(lc.shared, 10)+" bytes > "+strconv.FormatInt(lds, 10))
	}
	return v
}

// ldsLimit is the LDS per workgroup a launch is checked against: the log's
// own figure; else 160 KiB when every gfx target the log names is gfx950
// (MI350 / MI355: hipGetDeviceProperties' 163840, rocminfo's "Segment:
// GROUP, Size: 160 KB", lightseekorg/tokenspeed#119; Triton's "Hardware
// limit: 163840" there, vllm-project/vllm#49778); else 64 KiB. A log that
// also names another target (a build list, a tuning table for another GPU)
// keeps 64 KiB.
func (s *Session) ldsLimit() int64 {
	if s.limits.lds != defaultLimits().lds || s.b.facts.ldsLog > 0 {
		return s.limits.lds
	}
	archs := s.b.facts.gpuArch
	for _, a := range archs {
		if a != "gfx950" {
			return s.limits.lds
		}
	}
	if len(archs) > 0 {
		return 163840
	}
	return s.limits.lds
}

// checkLaunch records a launch configuration and its limit violations on a finding.
func (s *Session) checkLaunch(a *agg, lc launchConfig) {
	a.detail("grid", dims(lc.grid))
	a.detail("block", dims(lc.block))
	if lc.shared > 0 {
		a.detail("dynamic_lds_bytes", strconv.FormatInt(lc.shared, 10))
	}
	if lc.fn != "" {
		a.detail("kernel_function_address", lc.fn)
	}
	v := s.launchViolations(lc)
	for _, x := range v {
		a.note("launch over the device limit: " + x)
	}
	if len(v) == 0 && s.limits.dimBug == "" {
		a.note("launch geometry grid " + dims(lc.grid) + " block " + dims(lc.block) + " is within the device limits")
	}
}

func dims(d [3]int64) string {
	return "(" + strconv.FormatInt(d[0], 10) + "," + strconv.FormatInt(d[1], 10) + "," + strconv.FormatInt(d[2], 10) + ")"
}

func appendCap(xs []string, x string, n int) []string {
	if len(xs) >= n || containsStr(xs, x) {
		return xs
	}
	return append(xs, x)
}

// ldsLimitText is the LDS per workgroup to quote: the log's own figure, else
// the gfx target's (gfx950 / MI355X: 160 KiB; other CDNA and RDNA: 64 KiB
// per workgroup).
func ldsLimitText(f *facts) string {
	if f.ldsLog > 0 {
		if f.ldsLog%1024 == 0 {
			return strconv.FormatInt(f.ldsLog/1024, 10) + " KiB"
		}
		return strconv.FormatInt(f.ldsLog, 10) + " bytes"
	}
	for _, a := range f.gpuArch {
		if strings.HasPrefix(a, "gfx950") {
			return "160 KiB (gfx950)"
		}
	}
	return "64 KiB"
}
