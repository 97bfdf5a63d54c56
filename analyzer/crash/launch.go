package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// launchParser reads application launch-failure messages and device limits
// (seed 002 / fx08 wording, MIOpen) and checks launch configurations against
// the device limits (docs section 6).
type launchParser struct{ s *Session }

type launchConfig struct {
	fn     string
	kernel string
	grid   [3]int64
	block  [3]int64
	shared int64
	set    bool
	ev     Evidence
}

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
}

func defaultLimits() deviceLimits {
	return deviceLimits{maxThreads: 1024, maxDim: [3]int64{1024, 1024, 1024}, maxGrid: 4294967295, lds: 65536}
}

var (
	reAppLaunchFail = lazyre.New(`Kernel '([^']+)' launch failed: (\w+)(?: \(grid=\((\d+), ?(\d+), ?(\d+)\), block=\((\d+), ?(\d+), ?(\d+)\)\))?`)
	reAppLaunch     = lazyre.New(`kernel=([\w.:<>]+), grid=\((\d+), ?(\d+), ?(\d+)\), block=\((\d+), ?(\d+), ?(\d+)\)(?:, shared=(\d+))?`)
	reSharedExceed  = lazyre.New(`(?i)shared memory (\d+) bytes exceeds limit (\d+)`)
	reGridInvalid   = lazyre.New(`grid\.([xyz]) (\d+) invalid \(limit: (\d+)\.\.(\d+)\)`)
	reMaxThreads    = lazyre.New(`maxThreadsPerBlock[=:]\s*(\d+)`)
	reMaxDim        = lazyre.New(`maxThreadsDim[=:]\s*[\[(]\s*(\d+),\s*(\d+),\s*(\d+)\s*[\])]`)
	reWGMax         = lazyre.New(`Workgroup Max Size:\s*(\d+)`)
	reLDSLimit      = lazyre.New(`(?:sharedMemPerBlock|maxSharedMemoryPerBlock)[=:]\s*(\d+)`)
	reKernelLoad    = lazyre.New(`Kernel loading failed: (hip\w+)`)
	reModulePath    = lazyre.New(`(?i)load\w*\b.*?((?:/|\./)?[\w./+-]*?([\w+-]+)\.(?:hsaco|co))\b`)
	reSyncFailed    = lazyre.New(`Device synchronization failed after kernel '([^']+)': (.*)`)
	reAsyncHIP      = lazyre.New(`Async HIP error detected after kernel launch: code=(\d+), msg=(.*)`)
	reInvalidCfg    = lazyre.New(`(?i)invalid configuration argument|too many resources requested for launch|scratch_size overflow|HSA_STATUS_ERROR_OUT_OF_REGISTERS`)
)

func (p *launchParser) beginFile(*Session) {}
func (p *launchParser) endFile()           {}

func atoi64(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// threadLimits: a device-properties line's maxThreadsPerBlock and
// maxThreadsDim ("maxThreadsDim=[1024, 0, 0]" as a HIP driver printed it,
// seed 002). The rule, not the extractor, calls a zero dimension a bug.
type threadLimits struct {
	maxThreads int64 // 0 when absent
	hasDim     bool
	dim        [3]int64
	dimText    [3]string // as printed
}

func extractThreadLimits(t string) threadLimits {
	var tl threadLimits
	tl.maxThreads = atoi64(submatch(reMaxThreads, t))
	if m := findIf(t, "maxThreadsDim", reMaxDim); m != nil {
		tl.hasDim = true
		tl.dim = [3]int64{atoi64(m[1]), atoi64(m[2]), atoi64(m[3])}
		tl.dimText = [3]string{m[1], m[2], m[3]}
	}
	return tl
}

// extractWGMax: rocminfo's "Workgroup Max Size: N" (0 when absent).
func extractWGMax(t string) int64 { return atoi64(submatch(reWGMax, t)) }

// extractLDSLimit: "sharedMemPerBlock=N" / "maxSharedMemoryPerBlock: N"
// (0 when absent).
func extractLDSLimit(t string) int64 {
	if !strings.Contains(t, "SharedMem") {
		return 0
	}
	return atoi64(submatch(reLDSLimit, t))
}

func (p *launchParser) line(l *line) {
	t := l.text
	if strings.Contains(t, ".hsaco") || strings.Contains(t, ".co ") || strings.HasSuffix(t, ".co") {
		// "Loading HSACO /path/k.hsaco": the module a later load error is about
		if m := reModulePath.FindStringSubmatch(t); m != nil {
			p.s.lastModule, p.s.lastModuleEv = m[1], l.ev(p.s)
		}
	}
	if !containsAny(t, "aunch", "grid", "hared memory", "maxThreads", "Workgroup Max", "SharedMem", "Kernel loading", "nvalid configuration", "too many resources", "scratch_size", "synchronization failed", "Async HIP") {
		return
	}
	s := p.s
	switch {
	case strings.Contains(t, "maxThreadsPerBlock") || strings.Contains(t, "maxThreadsDim"):
		tl := extractThreadLimits(t)
		if tl.maxThreads > 0 {
			s.limits.maxThreads, s.limits.fromLog = tl.maxThreads, true
		}
		if tl.hasDim {
			d := tl.dim
			s.limits.maxDim = d
			if d[0] == 0 || d[1] == 0 || d[2] == 0 {
				// seed 002: the HIP driver reports maxThreadsDim[1..2] as 0;
				// no launch is "within limits" against such numbers
				s.limits.dimBug = "maxThreadsDim=[" + tl.dimText[0] + ", " + tl.dimText[1] + ", " + tl.dimText[2] + "]"
				a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
				bug := "the driver reports " + s.limits.dimBug + ": a HIP driver bug (zero-sized thread dimensions), not a real limit"
				a.detail("driver_limits_bug", bug)
				if a.f.Count == 1 {
					a.addReason(bug)
				}
				a.note("launch-limit checks against these device limits are meaningless: every block with y or z > 1 would fail them; query hipDeviceProp_t again or rely on maxThreadsPerBlock and the documented 1024 per dimension")
			}
		}
		return
	case strings.Contains(t, "Workgroup Max Size"):
		if v := extractWGMax(t); v > 0 {
			s.limits.maxThreads, s.limits.fromLog = v, true
		}
		return
	}
	if v := extractLDSLimit(t); v > 0 {
		s.limits.lds, s.b.facts.ldsLog = v, v
	}
	if !strings.Contains(t, "launch failed:") {
	} else if m := reAppLaunchFail.FindStringSubmatch(t); m != nil {
		s.format("app_launch_failure")
		e := lookupHIPName(m[2])
		a := s.b.add(s, ClassInvalidLaunch, l, 0.8)
		if e != nil {
			if e.class != "" && e.class != ClassInvalidLaunch && e.name != "hipErrorInvalidValue" {
				// the launch itself failed for another reason (e.g. no code object)
				b := s.b.add(s, e.class, l, 0.8)
				b.setHIP(e)
				b.setKernel(m[1], "application launch-failure message", 80)
			}
			a.setHIP(e)
		}
		a.setKernel(m[1], "application launch-failure message", 80)
		if m[3] != "" {
			lc := launchConfig{kernel: m[1], grid: [3]int64{atoi64(m[3]), atoi64(m[4]), atoi64(m[5])}, block: [3]int64{atoi64(m[6]), atoi64(m[7]), atoi64(m[8])}, set: true, ev: l.ev(s)}
			s.checkLaunch(a, lc)
		}
		return
	}
	if !strings.Contains(t, "kernel=") {
	} else if m := reAppLaunch.FindStringSubmatch(t); m != nil {
		s.format("app_launch_log")
		lc := launchConfig{kernel: m[1], grid: [3]int64{atoi64(m[2]), atoi64(m[3]), atoi64(m[4])}, block: [3]int64{atoi64(m[5]), atoi64(m[6]), atoi64(m[7])}, shared: atoi64(m[8]), set: true, ev: l.ev(s)}
		s.lastLaunch = lc
		if v := s.launchViolations(lc); len(v) > 0 {
			a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
			a.setKernel(lc.kernel, "launch log", 60)
			s.checkLaunch(a, lc)
		}
		return
	}
	if !strings.Contains(t, "exceeds limit") {
	} else if m := reSharedExceed.FindStringSubmatch(t); m != nil {
		a := s.b.add(s, ClassInvalidLaunch, l, 0.75)
		s.b.facts.ldsLog = atoi64(m[2])
		a.note("dynamic shared memory (LDS) " + m[1] + " bytes exceeds the per-workgroup limit " + m[2])
		return
	}
	if !strings.Contains(t, "invalid (limit") {
	} else if m := reGridInvalid.FindStringSubmatch(t); m != nil {
		a := s.b.add(s, ClassInvalidLaunch, l, 0.6)
		a.note("grid." + m[1] + " = " + m[2] + " rejected by the application's check (limit " + m[3] + ".." + m[4] + ")")
		return
	}
	if !strings.Contains(t, "Kernel loading failed") {
	} else if m := reKernelLoad.FindStringSubmatch(t); m != nil {
		if e := lookupHIPName(m[1]); e != nil && e.name == "hipErrorNotFound" {
			// the kernel's code object or symbol is missing: the launch
			// never ran (seed 002 "Kernel Not Found")
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
		return
	}
	if !strings.Contains(t, "synchronization failed") {
	} else if m := reSyncFailed.FindStringSubmatch(t); m != nil {
		s.kernelHint(m[1], "application sync-after-launch check", 75, l)
		// a device sync after every launch is what HIP_LAUNCH_BLOCKING=1 /
		// AMD_SERIALIZE_KERNEL=3 would add: the launches are serialized already
		s.b.facts.launchBlocking = true
		// "failed after kernel 'X': hipErrorY" names X as the kernel that failed
		name := strings.TrimRight(strings.Fields(m[2] + " ")[0], ":,.")
		if e := lookupHIPName(name); e != nil && e.class != "" {
			a := s.b.add(s, e.class, l, 0.75)
			a.setHIP(e)
			a.setKernel(m[1], "application: device synchronization failed after this kernel", 75)
			a.strong = true
		}
		return
	}
	if !strings.Contains(t, "Async HIP error") {
	} else if m := reAsyncHIP.FindStringSubmatch(t); m != nil {
		if e := lookupHIPCode(atoiDef(m[1], -1)); e != nil && e.class != "" {
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
		return
	}
	if containsAny(t, "invalid configuration argument", "too many resources requested", "scratch_size overflow", "OUT_OF_REGISTERS") {
		a := s.b.add(s, ClassInvalidLaunch, l, 0.75)
		switch {
		case strings.Contains(t, "invalid configuration argument"):
			a.setHIP(lookupHIPName("hipErrorInvalidConfiguration"))
		case strings.Contains(t, "too many resources requested"):
			a.setHIP(lookupHIPName("hipErrorLaunchOutOfResources"))
		case strings.Contains(t, "scratch_size overflow"):
			a.note("scratch (private segment) size overflow: the kernel needs more scratch than the runtime can map")
		}
		if strings.Contains(t, "Failed to launch kernel") {
			a.detail("source", "MIOpen")
		}
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
	if lc.shared > lim.lds {
		v = append(v, "dynamic LDS "+strconv.FormatInt(lc.shared, 10)+" bytes > "+strconv.FormatInt(lim.lds, 10))
	}
	return v
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

// launchKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var launchKeywords = []string{"maxThreadsPerBlock", "Workgroup Max Size", "SharedMem", "launch failed:", "kernel=", "exceeds limit", "invalid (limit", "Kernel loading failed", ".hsaco", ".co", "synchronization failed", "Async HIP error", "invalid configuration argument", "too many resources requested", "scratch_size overflow", "OUT_OF_REGISTERS"}
