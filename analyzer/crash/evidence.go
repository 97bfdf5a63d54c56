package crash

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
	"github.com/gputriage/gputriage/internal/quote"
)

// evidenceParser notes what the inputs already contain, so the next steps
// never ask for it again: rocgdb dispatch tables (how many dumps), py-spy
// dumps, NCCL_DEBUG=INFO output, debug-agent wave dumps, the pid a debugger
// attached to, the GPU architecture (facts.gpuArch, noted elsewhere).
type evidenceParser struct{ s *Session }

// inHand is the session-wide record of evidence present in the inputs.
type inHand struct {
	rocgdbDumps int      // "info dispatches" tables (one per dump)
	pyspy       int      // py-spy dump headers
	ncclInfo    bool     // NCCL/RCCL INFO lines: the log already runs with NCCL_DEBUG=INFO
	waves       bool     // debug-agent wave headers
	attachPID   int      // rocgdb / gdb attached to this pid
	pids        []int    // pids named by per-pid files and attach lines
	savedCO     []string // code-object files rocm-debug-agent saved, as listed (with the numeric prefix)
	frRecorder  bool     // the flight recorder is on (its env set, a dump written, its analysis pasted)
}

var (
	reAttach    = lazyre.New(`(?:Attaching to process|attach(?:ed)? to (?:process|pid)|-p) (\d{2,9})\b`)
	reNCCLInfo  = lazyre.New(`\b(?:NCCL|RCCL) INFO\b`)
	rePySpyPID  = lazyre.New(`^(?:Process (\d+): |Pyspy dump for PID (\d+))`)
	rePySpyHead = lazyre.New(`^(?:Process \d+: |Thread 0x[0-9A-Fa-f]+ \(|Pyspy dump for PID )`)
	// --save-code-objects file names: "<n>_memory___<pid>_offset_…_size_<n>", "<n>_file____…"
	reSavedCO = lazyre.New(`\b(\d+_(?:memory|file)___[\w.+-]*?_size_\d+)\b`)
)

func (p *evidenceParser) beginFile(*Session) {}
func (p *evidenceParser) endFile()           {}
func (p *evidenceParser) gate() uint64       { return kwEvidence }
func (p *evidenceParser) active(int) bool    { return false }
func (p *evidenceParser) stateless()         {}

func (p *evidenceParser) line(l *line) {
	t := l.text
	h := &p.s.b.facts.inHand
	switch {
	case strings.Contains(t, "Target Id") && strings.Contains(t, "Kernel Function"), strings.Contains(t, "No dispatches are currently active"):
		h.rocgdbDumps++
	case strings.Contains(t, "wave_") && strings.Contains(t, "pc=0x"):
		h.waves = true
	case strings.Contains(t, " INFO") && reNCCLInfo.MatchString(t):
		h.ncclInfo = true
	case rePySpyHead.MatchString(strings.TrimSpace(t)):
		h.pyspy++
		if m := rePySpyPID.FindStringSubmatch(strings.TrimSpace(t)); m != nil {
			h.addPID(atoiDef(m[1]+m[2], 0)) // the dumped process
		}
	}
	if extractFlightRecorderOn(t) {
		h.frRecorder = true
	}
	if strings.Contains(t, "___") {
		for _, m := range reSavedCO.FindAllStringSubmatch(t, 4) {
			if len(h.savedCO) < 32 && !containsStr(h.savedCO, m[1]) {
				h.savedCO = append(h.savedCO, m[1])
			}
		}
	}
	if commandLike(t) && !strings.HasPrefix(strings.TrimSpace(t), "rocgdb") {
		return
	}
	if m := findFoldIf(t, "attach", reAttach); m != nil || strings.Contains(t, "Attaching to process") {
		if m == nil {
			m = reAttach.FindStringSubmatch(t)
		}
		if m != nil {
			h.attachPID = atoiDef(m[1], 0)
			h.addPID(h.attachPID)
		}
	}
}

func (h *inHand) addPID(pid int) {
	if pid > 0 && len(h.pids) < 64 && !containsInt(h.pids, pid) {
		h.pids = append(h.pids, pid)
	}
}

// nextStepsFor is the one place where next steps meet the evidence: it
// takes the class's generic steps (nextsteps.go), fills in what the inputs
// name (pids, ranks, kernels, dump folders, the saved code object, the
// arch), drops steps that ask for evidence already in hand, and adds the
// seed steps that fit the evidence (seed 000's kernel-API escalation at the
// level the logs already have; seed 003 steps 5–7 for a PC-named kernel, a
// race or a hang). Findings from any parser feed it through their fields
// and these generic detail keys: pid, pids, culprit_pid, culprit_rank,
// rank, kernel, dump_dir.
func nextStepsFor(f *Finding, facts *facts) []string {
	// the saved code object as the agent named it (its numeric prefix kept)
	if f.SavedCodeObject != "" {
		for _, n := range facts.inHand.savedCO {
			if i := strings.IndexByte(n, '_'); i > 0 && n[i+1:] == f.SavedCodeObject {
				f.SavedCodeObject = n
				break
			}
		}
	}
	ctx := stepContext(f, facts)
	var out []string
	add := func(s string) {
		if s != "" && len(out) < 10 && !containsStr(out, s) {
			out = append(out, s)
		}
	}
	cuda := (facts.vendorNV || facts.runtimeNV) && !facts.vendorAMD && !facts.runtimeAMD
	rocm := (facts.vendorAMD || facts.runtimeAMD) && !facts.vendorNV && !facts.runtimeNV
	for _, s := range nextSteps(f, facts) {
		s = ctx.apply(s)
		if cuda {
			s = ctx.apply(cudaStep(s))
		}
		if rocm {
			s = rocmStep.Replace(s)
		}
		add(s)
	}
	for _, s := range ctx.seedSteps(f, facts) {
		if cuda {
			s = cudaStep(s)
		}
		if rocm {
			s = rocmStep.Replace(s)
		}
		add(s)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

type stepCtx struct {
	pid       string
	rank      string
	kernel    string
	arch      string
	codeObj   string
	h         inHand
	launchBlk bool
	waves     bool
	kapi      *kernelAPIFact
	oom       *bool // the container runtime's OOMKilled verdict, when in hand
}

func stepContext(f *Finding, facts *facts) *stepCtx {
	c := &stepCtx{h: facts.inHand, launchBlk: facts.launchBlocking, kapi: &facts.kernelAPI, kernel: f.Kernel, codeObj: f.SavedCodeObject}
	c.waves = f.Waves > 0 || facts.inHand.waves
	c.oom = facts.container.oomKilled
	for _, k := range []string{"culprit_pid", "attached_pid", "pid", "killed_pid", "exited_pid"} {
		if v := f.Details[k]; v != "" && c.pid == "" {
			c.pid = v
		}
	}
	if c.pid == "" && f.PID != nil {
		c.pid = strconv.Itoa(*f.PID)
	}
	if c.pid == "" && facts.inHand.attachPID > 0 {
		c.pid = strconv.Itoa(facts.inHand.attachPID)
	}
	if c.pid == "" && len(facts.inHand.pids) == 1 && f.Class != ClassNotGPU {
		c.pid = strconv.Itoa(facts.inHand.pids[0]) // the one process the dumps are of
	}
	if c.pid == "" && facts.kernelAPI.pid > 0 && f.Class != ClassNotGPU {
		c.pid = strconv.Itoa(facts.kernelAPI.pid)
	}
	if v := f.Details["culprit_rank"]; v != "" {
		c.rank = v
	} else if v := f.Details["rank"]; v != "" {
		c.rank = v
	} else if len(f.Ranks) == 1 {
		c.rank = strconv.Itoa(f.Ranks[0])
	}
	for _, k := range []string{"stuck_kernel", "kernel"} {
		if c.kernel == "" {
			c.kernel = f.Details[k]
		}
	}
	// the hang analysis counts rocgdb dumps per finding (details.rocgdb_dumps)
	// (a dump that is only a backtrace names no kernel: it does not count)
	if n := atoiDef(f.Details["rocgdb_dumps"], 0); n > c.h.rocgdbDumps && f.Hang != nil && (len(f.Hang.Dispatches) > 0 || len(f.Hang.WaveGroups) > 0) {
		c.h.rocgdbDumps = n
	}
	if len(facts.gpuArch) > 0 {
		a := append([]string(nil), facts.gpuArch...)
		sort.Strings(a)
		c.arch = strings.Join(a, ", ")
	}
	return c
}

// apply fills one generic step with the evidence or drops it ("").
func (c *stepCtx) apply(s string) string {
	low := strings.ToLower(s)
	// evidence already in hand
	switch {
	case c.h.rocgdbDumps >= 1 && strings.HasPrefix(s, "On stuck ranks: py-spy dump"):
		if c.h.pyspy > 0 {
			return ""
		}
		s = "On stuck ranks: py-spy dump --pid <pid> --native (the rocgdb dumps are in hand)"
	case c.h.rocgdbDumps >= 2 && (strings.Contains(s, "rocgdb -p") || strings.Contains(low, "two dumps")):
		return ""
	case c.h.rocgdbDumps == 1 && strings.Contains(low, "two dumps"):
		s = strings.Replace(s, "Take two dumps", "Take a second dump (one is in hand)", 1)
	case c.h.rocgdbDumps == 1 && strings.Contains(s, "rocgdb -p"):
		return "" // the "second dump" step says what to run
	case c.h.ncclInfo && strings.HasPrefix(s, "NCCL_DEBUG=INFO"):
		return ""
	case c.arch != "" && strings.Contains(s, "rocminfo") && (strings.HasPrefix(s, "Find the GPU target") || strings.HasPrefix(s, "Compare the kernel's target")):
		if strings.HasPrefix(s, "Find the GPU target") {
			return "The GPU target in the evidence is " + c.arch + ": use a build whose fat binary includes it (check its xnack/sramecc features too)"
		}
		s = strings.Replace(s, "(rocminfo | grep -m1 gfx)", "(the evidence shows "+c.arch+")", 1)
	case c.waves && strings.Contains(low, "rerun under the debug agent") && !strings.Contains(low, "precise"):
		return ""
	case c.h.pyspy > 0 && strings.HasPrefix(s, "py-spy dump --pid"):
		return ""
	case c.h.frRecorder && strings.HasPrefix(s, "Enable the flight recorder"):
		return "The flight recorder is on: analyse its per-rank dumps for the first collective a rank never joined (torchfrtrace --prefix <dump prefix> <dump dir>, or python -m torch.distributed.flight_recorder.fr_trace)"
	case c.launchBlk && strings.HasPrefix(s, "If HIP_LAUNCH_BLOCKING=1 / AMD_SERIALIZE_KERNEL=3 makes the hang vanish"):
		return "The hang persists with launches already serialized: not a race between streams — read the loop at the stuck PC and the flag or counter it waits on"
	case c.launchBlk && (strings.HasPrefix(s, "Serialize launches") || strings.HasPrefix(s, "The reported location is not the fault site: rerun with AMD_SERIALIZE_KERNEL=3")):
		return ""
	case c.oom != nil && strings.HasPrefix(s, "Confirm the OOM killer"):
		if *c.oom {
			return "The container runtime already says OOMKilled=true: the container's memory limit killed it — raise the limit (docker run --memory / --shm-size) or lower host memory use"
		}
		return "The container runtime says OOMKilled=false: look for who sent SIGKILL (orchestrator / launcher timeout, a manual kill -9, the host OOM killer outside the container: sudo dmesg -T | grep -i 'killed process')"
	case c.oom != nil && *c.oom && strings.HasPrefix(s, "On exit 137"):
		return "Retry with a smaller batch / fewer concurrent requests (seed 000 on signal 137)"
	case strings.HasPrefix(s, "Escalate the kernel-API log") || strings.HasPrefix(s, "Replay the last dump"):
		return "" // seedSteps gives the escalation that fits the level in hand
	}
	// fill placeholders; they stand in commands, so each value is one
	// quoted word (a value that cannot be quoted leaves the placeholder)
	fill := func(ph []string, v string) {
		if w, ok := quote.Shell(v); ok && v != "" {
			for _, p := range ph {
				s = strings.ReplaceAll(s, p, w)
			}
		}
	}
	fill([]string{"<worker pid>", "<scheduler pid>", "<rank-pid>", "<pid>"}, c.pid)
	if c.kernel != "" {
		fill([]string{"<kernel>"}, shortKernel(c.kernel))
	}
	if c.arch != "" {
		fill([]string{"<gfx>"}, strings.Split(c.arch, ", ")[0])
	}
	return s
}

var reTritonKernel = lazyre.New(`(?i)^(?:triton_|_?\w+_kernel$)|triton`)

// seedSteps are the steps that depend on the evidence as a whole.
func (c *stepCtx) seedSteps(f *Finding, facts *facts) []string {
	var out []string
	gpu := f.Class == ClassGPUMemoryFault || f.Class == ClassDeviceAssert || f.Class == ClassIllegalInstruction || f.Class == ClassFP8AttentionCrash
	race := f.Class == ClassAsyncRace || f.Class == ClassGPUKernelHang && (strings.Contains(strings.ToLower(strings.Join(append(f.Kernels, f.Kernel), " ")), "clean") || containsAny(strings.Join(f.Notes, " "), "split-K", "workspace", "race"))
	// seed 003 step 5: the PC can lie
	if gpu && c.kernel != "" && (c.waves || len(f.StopPCs) > 0) {
		k := stepWord(c.kernel, "the kernel")
		s := "Verify it is " + k + " (the PC can lie"
		if reTritonKernel.MatchString(c.kernel) {
			s += ", Triton kernels especially"
		}
		s += "): disable that call and retest, or rerun with HIP_LAUNCH_BLOCKING=1 — if the fault vanishes it is an async race and " + k + " is the victim, not the cause"
		out = append(out, s)
	}
	if f.Details["code_object_corrupt"] != "" || f.SavedCodeObject != "" && f.Class != ClassGPUMemoryFault {
		name, glob := f.SavedCodeObject, ""
		if name != "" && (name[0] < '0' || name[0] > '9') {
			glob = "*" // newer agents prefix "<n>_"; the listing was not in the evidence
		}
		// the file name is the input's: one quoted word after the glob
		// (the prose shows the same word: a whole pasted step runs nothing either)
		arg, shown := "DIR/"+glob+"FILE (the file name cannot be pasted into a command: type it by hand)", "FILE"
		if w, ok := quote.Shell(name); ok && name != "" {
			arg, shown = "DIR/"+glob+w, glob+w
		}
		s := "Disassemble the saved code object " + shown + " (in the --save-code-objects directory): /opt/rocm/llvm/bin/llvm-objdump --disassemble-all " + arg
		if off := f.Details["stop_pc_offset_in_code_object"]; off != "" {
			s += " and read around offset " + off
		}
		if f.Details["code_object_corrupt"] != "" {
			s += "; the stop pc holds data: compare it with the kernel binary on disk — a mismatch means a device write stomped on the loaded code"
		}
		if f.SavedCodeObject != "" {
			out = append(out, s)
		}
	}
	// seed 003 steps 6–7: bisect the racer; never ship synchronize
	if race || f.Class == ClassAsyncRace {
		out = append(out, "Bisect the racer: comment out one suspect call at a time on the other stream(s); the call whose absence fixes it is one of the racing parties")
		out = append(out, "Do not ship torch.cuda.synchronize() / stream.wait_stream() as the fix: it masks the race for one workload and resurfaces as a worse hang on a larger one")
		if race && f.Class == ClassGPUKernelHang {
			out = append(out, "Make shared workspaces stream-keyed (e.g. cache per (device, stream) so each stream gets its own split-K counter / buffer)")
		}
	}
	if s := c.escalation(f, facts); s != "" {
		out = append(out, s)
	}
	return out
}

// escalation is seed 000's kernel-API escalation at the level the evidence
// already has (1 → 3/5 → 10 with dump filters → replay the dump).
func (c *stepCtx) escalation(f *Finding, facts *facts) string {
	k := c.kapi
	switch f.Class {
	case ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassFP8AttentionCrash, ClassAsyncRace, ClassHostSegfault, ClassNumericalNaN:
	default:
		return ""
	}
	env := "SGLANG_KERNEL_API"
	lvlEnv := "SGLANG_KERNEL_API_LOGLEVEL"
	if k.source == "FlashInfer" {
		env, lvlEnv = "FLASHINFER", "FLASHINFER_LOGLEVEL"
	}
	api := k.lastCall
	if k.exceptionAPI != "" {
		api = k.exceptionAPI
	}
	if n := k.firstNaN; n != nil && f.Class == ClassNumericalNaN {
		api = n.call
	}
	filter, left := "", ""
	if api != "" {
		// the pattern is one quoted word: the API name is the input's
		if w, ok := quote.Env(env+"_DUMP_INCLUDE", "*"+lastSegment(api)+"*"); ok {
			filter = " " + w
		} else {
			left = " (the API name holds characters that cannot be pasted into a command: set " + env + "_DUMP_INCLUDE to it by hand)"
		}
	}
	if d := k.crashedDump(); d != nil {
		fn := d.function
		if fn == "" {
			fn = api
		}
		// names in the prose are quoted words too: the tail after a colon is
		// pasted as a command (a dump folder named call0007$(touch…) ran)
		return "The process died inside " + shellOr(fn, "the dumped call") + ": dump " + shellOr(d.dir, "(its folder name cannot be pasted)") + " has its inputs (inputs.pt) but no outputs — replay it offline: " + replayStep(k.source, d.dir, fn)
	}
	switch {
	case k.calls == 0 && len(k.dumps) == 0:
		if f.Class == ClassHostSegfault {
			return "Enable kernel-API logging at level 10 for the retry (seed 000 on signal 139): " + lvlEnv + "=10 " + env + "_DUMP_DIR=/workspace/crash_dumps, so the last call and its inputs survive the crash"
		}
		return "" // no SGLang/FlashInfer logging in the evidence: nothing to escalate
	case k.level >= 10:
		if k.graphSkipped {
			// the run already logs at level 10: asking for it again is
			// asking for what the input has — the graph capture is in the way
			s := "Level-10 dumps were skipped during graph capture: rerun the failing step in eager mode (--disable-cuda-graph / --enforce-eager) with the level-10 logging kept"
			if filter != "" {
				s += " and the dump filter" + filter
			}
			return s + left
		}
		if d := k.lastDump(); d != nil {
			return "The newest dump (" + shellOr(d.dir, "its folder name cannot be pasted") + ") completed: the failing call was not dumped — narrow the dump filter to the failing API:" + filter + left
		}
		return ""
	case f.Class == ClassHostSegfault:
		return "Escalate to level 10 (seed 000 on signal 139): " + lvlEnv + "=10 " + env + "_DUMP_DIR=/workspace/crash_dumps" + filter + left
	case k.level >= 3:
		if f.Class == ClassNumericalNaN {
			return "Dump the first call that produced NaN/Inf: " + lvlEnv + "=10 " + env + "_DUMP_DIR=/workspace/crash_dumps" + filter + ", then replay its inputs.pt" + left
		}
		return "Escalate to level 10 with a targeted dump filter: " + lvlEnv + "=10 " + env + "_DUMP_DIR=/workspace/crash_dumps" + filter + left
	default:
		return "Escalate the kernel-API log from level 1 to 3 (shapes, dtypes, contiguity of the failing call's inputs) or 5 (NaN/Inf statistics): " + lvlEnv + "=3"
	}
}

// replayStep is the command that replays a dump's inputs. The folder is
// the input's: the shell gets it as one quoted word and Python as a string
// literal (or by reference, sys.argv[1]), never as code; a folder that cannot
// be quoted is left out with a note.
func replayStep(source, dir, fn string) string {
	if source == "FlashInfer" {
		if w, ok := quote.Shell(dir); ok {
			return "python -c 'import sys; from flashinfer.api_logging import replay_from_dump; replay_from_dump(sys.argv[1])' " + w
		}
		return "python -c 'import sys; from flashinfer.api_logging import replay_from_dump; replay_from_dump(sys.argv[1])' DUMP_DIR (the folder name holds characters that cannot be pasted into a command: pass it by hand)"
	}
	if lit, ok := quote.Python(dir + "/inputs.pt"); ok {
		return "torch.load(" + lit + ") and call " + shellOr(fn, "the dumped call") + " with those arguments alone"
	}
	return "torch.load() its inputs.pt and call " + shellOr(fn, "the dumped call") + " with those arguments alone (the folder name is not valid UTF-8: open it by hand)"
}

// lastSegment returns the last dotted component of an API name.
func lastSegment(api string) string {
	if i := strings.LastIndexByte(api, '.'); i >= 0 && i+1 < len(api) {
		// keep Class.method together (RMSNorm.forward)
		if j := strings.LastIndexByte(api[:i], '.'); j >= 0 {
			return api[j+1:]
		}
	}
	return api
}

// runtimeVendor reads the vendor from what the framework itself printed,
// when no vendor-only format did: the runtime's own rerun hint (CUDA builds
// of PyTorch print "consider passing CUDA_LAUNCH_BLOCKING=1", ROCm builds
// AMD_SERIALIZE_KERNEL=3 or, older, HIP_LAUNCH_BLOCKING=1), the C++ file an
// async error was raised from (c10/cuda/… vs c10/hip/…) and the OOM message
// ("CUDA out of memory" vs "HIP out of memory"). The words "CUDA error" and
// "CUDA kernel errors might be…" decide nothing: ROCm 7 PyTorch prints them
// too (shared s13). Real CUDA wordings: crash-heldout-real x15 x16 x17 x34,
// crash-corpus r047, shared gpu/crash a2; ROCm: s13 (AMD_SERIALIZE_KERNEL),
// s03 (TORCH_USE_HIP_DSA + AMD_SERIALIZE_KERNEL).
func runtimeVendor(f *facts, work map[string]*agg) {
	for _, n := range f.notes {
		if v, ok := strings.CutPrefix(n, "the runtime suggests rerunning with "); ok {
			switch {
			case strings.HasPrefix(v, "CUDA_LAUNCH_BLOCKING"):
				f.runtimeNV = true
			case containsAny(v, "AMD_SERIALIZE_KERNEL", "HIP_LAUNCH_BLOCKING"):
				f.runtimeAMD = true
			}
		}
	}
	switch {
	case strings.Contains(f.asyncFrom, "c10/cuda/"):
		f.runtimeNV = true
	case strings.Contains(f.asyncFrom, "c10/hip/"):
		f.runtimeAMD = true
	}
	for _, a := range work {
		switch a.details["runtime"] {
		case "CUDA":
			f.runtimeNV = true
		case "HIP":
			f.runtimeAMD = true
		}
	}
}

// rocmStep drops a step's CUDA aside when the evidence holds only ROCm
// formats: a ROCm user is not sent to nvidia-smi or CUDA's variables.
var rocmStep = strings.NewReplacer(
	" (nvidia-smi)", "",
	"; CUDA: CUDA_LAUNCH_BLOCKING=1)", ")",
	" (CUDA: PYTORCH_CUDA_ALLOC_CONF)", "",
	" (CUDA: TORCH_USE_CUDA_DSA=1)", "",
	" / CUDA_LAUNCH_BLOCKING=1)", ")",
)

// cudaStep words a ROCm step for an NVIDIA system (the evidence holds only
// NVIDIA formats): the same question, asked of CUDA's tools; "" drops a
// step that has no CUDA counterpart.
func cudaStep(s string) string {
	low := strings.ToLower(s)
	switch {
	case s == "":
		return ""
	case strings.HasPrefix(s, "Compare the kernel's target with the GPU"):
		// illegal instruction: the binary's SASS targets against the device
		return "Compare the binary's GPU targets with the device: nvidia-smi --query-gpu=name,compute_cap --format=csv against cuobjdump --list-elf <library> (sm_XX): code built for another architecture, or a compiler / driver bug, executes illegal instructions"
	case strings.HasPrefix(s, "Find the GPU target: rocminfo"):
		// arch_mismatch: the device's compute capability against the wheel's
		return "Find the GPU's compute capability: nvidia-smi --query-gpu=name,compute_cap --format=csv"
	case strings.HasPrefix(s, "Use a PyTorch/ROCm build whose fat binary includes that target"):
		return "Use a build whose CUDA arch list includes it: python -c 'import torch; print(torch.cuda.get_arch_list())' shows what the wheel carries; a newer GPU needs a wheel built with a newer CUDA (sm_120 needs CUDA 12.8+), or rebuild with TORCH_CUDA_ARCH_LIST"
	case strings.HasPrefix(s, "AMD_LOG_LEVEL=4 prints 'Missing CO"):
		return "List the targets a library carries: cuobjdump --list-elf <library.so> (sm_XX) and --list-ptx (compute_XX, JIT-compiled for newer GPUs)"
	case strings.HasPrefix(s, "Rebuild or reinstall ") && strings.Contains(s, "gfx target"):
		return "Rebuild or reinstall the library that ships the kernel for the GPU's compute capability (TORCH_CUDA_ARCH_LIST / -gencode arch=compute_XX,code=sm_XX), or update the CUDA toolkit and driver pair"
	case strings.HasPrefix(s, "Inspect RAS counters"):
		return "Inspect ECC and row remapping: nvidia-smi -q -d ECC,ROW_REMAPPER (a pending remap needs a GPU reset, nvidia-smi -r); dcgmi diag -r 3 tests the GPU before it goes back into service"
	case strings.HasPrefix(s, "Copy-engine / driver path"):
		return "The driver's own path, not a kernel bug: look the Xid up in NVIDIA's Xid catalog (sudo dmesg -T | grep -i xid), update the NVIDIA driver, and reset the GPU (nvidia-smi -r) or reboot before the next run"
	case strings.HasPrefix(s, "'Failed to resume KFD'"), strings.HasPrefix(s, "On APUs"):
		return ""
	case strings.HasPrefix(s, "Collect the devcoredump"):
		return "Reset the GPU (nvidia-smi -r -i <gpu>) or reboot; if it recurs, check power, cooling and the PCIe link (nvidia-smi -q -d POWER,TEMPERATURE; sudo lspci -vvv for link errors) and the driver version, and run nvidia-bug-report.sh for NVIDIA"
	case strings.Contains(s, "rocgdb") || strings.HasPrefix(s, "On stuck ranks: py-spy dump"):
		if strings.HasPrefix(s, "On stuck ranks: py-spy dump") {
			return "On stuck ranks: py-spy dump --pid <pid> --native, and cuda-gdb -p <pid> -batch -ex 'info cuda kernels' -ex 'bt' to see whether an ncclDevKernel is still running"
		}
		return "cuda-gdb -p <worker pid> -batch -ex 'info cuda kernels' -ex 'thread apply all bt' to see the kernels that never finish"
	case strings.Contains(low, "debug agent"):
		if i := strings.Index(s, "; to get the faulting instruction"); i > 0 {
			return s[:i] + "; compute-sanitizer --tool memcheck <app> names the faulting access"
		}
		return "Name the faulting kernel and access: rerun under compute-sanitizer --tool memcheck <app> (or cuda-gdb with 'set cuda memcheck on')"
	case strings.HasPrefix(s, "Check P2P/IPC and IOMMU (amd_iommu"):
		// NCCL's P2P/IPC transport on NVIDIA: the topology's P2P matrix and
		// PCIe ACS (which routes peer traffic through the root complex, or
		// blocks it) are what NCCL's troubleshooting guide checks first
		return "Check P2P/IPC between the GPUs: nvidia-smi topo -m and nvidia-smi topo -p2p r (peer reads per pair), PCIe ACS / IOMMU settings (NCCL_P2P_DISABLE=1 as a test), CUDA_VISIBLE_DEVICES and the rank→GPU map, container --ipc=host and --gpus flags"
	case strings.HasPrefix(s, "Compare grid / block / LDS"):
		// invalid_launch: CUDA's per-block limits are threads, registers
		// and shared memory (cudaGetDeviceProperties)
		return "Compare grid / block / shared memory with the device limits (cudaGetDeviceProperties / deviceQuery: maxThreadsPerBlock 1024, regsPerBlock 65536, sharedMemPerBlock 48 KiB unless the kernel opts in to more)"
	case strings.HasPrefix(s, "Shrink the shared memory (LDS) "):
		s = strings.Replace(s, "shared memory (LDS)", "shared memory", 1)
		if i := strings.Index(s, "; a configuration tuned for"); i > 0 {
			s = s[:i] + "; a configuration tuned for a GPU with more shared memory does not fit here"
		}
		return s
	case strings.HasPrefix(s, "Keep blocks at ≤ 1024 threads"):
		return "Keep registers × threads per block within regsPerBlock: cap registers with __launch_bounds__(<threads>) or -maxrregcount, or launch fewer threads per block; keep dynamic shared memory within the limit"
	case strings.HasPrefix(s, "AMD_LOG_LEVEL=3 logs every hipLaunchKernel"), strings.HasPrefix(s, "Read the kernel's resource use: compile with -Rpass"):
		return "Read the kernel's resource use: nvcc -Xptxas -v (registers and shared memory per kernel) or cuobjdump --dump-resource-usage <binary>"
	case strings.HasPrefix(s, "Serialize launches") && strings.Contains(s, "AMD_SERIALIZE_KERNEL"):
		return "Serialize launches so the traceback points at the failing call: CUDA_LAUNCH_BLOCKING=1"
	case strings.Contains(s, "AMD_SERIALIZE_KERNEL"):
		s = strings.Replace(s, " (older ROCm: HIP_LAUNCH_BLOCKING=1; CUDA: CUDA_LAUNCH_BLOCKING=1)", "", 1)
		return strings.NewReplacer("HIP_LAUNCH_BLOCKING=1 / AMD_SERIALIZE_KERNEL=3", "CUDA_LAUNCH_BLOCKING=1", "AMD_SERIALIZE_KERNEL=3", "CUDA_LAUNCH_BLOCKING=1", "HIP_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=1").Replace(s)
	case strings.Contains(s, "TORCH_USE_HIP_DSA"):
		return "Get the assert text: build/use PyTorch with TORCH_USE_CUDA_DSA=1"
	case strings.Contains(s, "PYTORCH_HIP_ALLOC_CONF"):
		return "Fragmentation: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
	case strings.Contains(s, "rocm-smi --showpids"):
		return "Another process holds the GPU memory: nvidia-smi --query-compute-apps=pid,used_memory --format=csv, and stop it"
	case strings.HasPrefix(s, "Watch memory while reproducing"):
		return "Watch memory while reproducing: nvidia-smi --query-gpu=memory.used,memory.total --format=csv -l 1"
	case containsAny(s, "amdgpu", "MES", "rocm-smi", "APUs", "amd-smi", "HSA_", "gfx", "devcoredump", "'page fault'"):
		if strings.Contains(low, "dmesg") {
			return "Read the NVIDIA driver's view: sudo dmesg -T | grep -i xid (Xid code and pid for this GPU), nvidia-smi -q for its state"
		}
		return ""
	}
	return s
}

// evidenceKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var evidenceKeywords = []string{"TORCH_NCCL_TRACE_BUFFER_SIZE=", "TORCH_FR_BUFFER_SIZE=", "flight recorder", "Not all ranks joining", "Target Id", "No dispatches are currently", "wave_", " INFO", "Process ", "Thread 0x", "Pyspy dump", "ttach", "___"}
