package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// dmesgParser reads amdgpu kernel messages (docs section 11): page faults in
// every known layout, hang/reset/firmware lines, RAS/ECC, driver-side DMA
// failures, the host OOM killer and NVIDIA Xid lines.
type dmesgParser struct {
	s         *Session
	recs      map[string]*pageFault // open page-fault record per device (BDF)
	timeout   int                   // line number of the last ring timeout (its process line follows)
	nvGPU     string                // BDF of the last "NVRM: The NVIDIA GPU <bdf>" (continued on the next lines)
	nvGPULine int
	// a paste that begins inside a decode block (fault-status fields, no
	// header, no address): kept apart and ruled at the end of the file —
	// a fault only when no header of that device follows (else it is the
	// tail of a fault the paste cut, and the following records speak)
	orphans map[string]*pageFault
	headers map[string]bool
	oops    int // line number of the last kernel oops header ("BUG: …", "Oops: …")
	// a decode's process line seen before any record of its device (the
	// paste cut the header above it), kept for the address line after it
	pendProc map[string]pfLine
	pendLine map[string]int
	pendEv   map[string]Evidence
}

type pageFault struct {
	faulted    bool // an orphan's permission / mapping bit was set
	bdf, hub   string
	process    string
	pid        int
	addr       string
	client     string
	status     string
	flags      map[string]string
	retry      string
	ring, vmid string
	headless   bool // the paste began after the record's header
	lines      []Evidence
	first      *line
}

var (
	rePFHeader  = lazyre.New(`(?:amdgpu (\S+): )?(?:amdgpu: )?\[(\w+)\] (retry |no-retry |VMC |UTCL2 )?page fault \(src_id:(\d+) ring:(\d+) vm_?id:(\d+) pas_?id:(\d+)(?:, for process (\S*) pid (\d+) thread (\S*) pid (\d+))?`)
	rePFProcess = lazyre.New(`(?:for process|in process|Process information: process|Process) (\S*) pid (\d+) thread (\S*) pid (\d+)`)
	rePFAddr    = lazyre.New(`(?:in page starting at address|^\s*at page) (0x[0-9a-fA-F]+)(?: from (?:IH )?(?:client )?(.*))?`)
	rePFStatus  = lazyre.New(`(?:GC)?VM_L2_PROTECTION_FAULT_STATUS:(0x[0-9a-fA-F]+)`)
	rePFClient  = lazyre.New(`Faulty UTCL2 client ID: (.*)$`)
	rePFFlag    = lazyre.New(`\b(MORE_FAULTS|WALKER_ERROR|PERMISSION_FAULTS|MAPPING_ERROR|RW): (0x[0-9a-fA-F]+)`)
	// the pre-gfx9 decode (gmc v6–v8, 4.x kernels): "GPU fault detected:
	// 146 0x0000480c [for process P pid N thread T pid M]", then
	// "VM_CONTEXT1_PROTECTION_FAULT_ADDR 0x…" (a page number),
	// "VM_CONTEXT1_PROTECTION_FAULT_STATUS 0x…" and "VM fault (0x0c, vmid 4[,
	// pasid 32773]) at page 0, read from 'TC4' (0x54433400) (72)"
	// the SMU's unanswered message: powerplay's "failed to send message 200
	// ret is 0" (smu7) and swsmu's "Failed to send message 0x26, response 0x0"
	reSMUFail   = lazyre.New(`(?i)failed to send message (?:0x[0-9a-f]+|\d+)(?:, response 0x[0-9a-f]+| ret is -?\d+)`)
	reGMCHeader = lazyre.New(`GPU fault detected: (\d+) 0x[0-9a-fA-F]+(?: for process (\S*) pid (\d+) thread (\S*) pid (\d+))?`)
	reGMCAddr   = lazyre.New(`VM_CONTEXT1_PROTECTION_FAULT_ADDR\s+(0x[0-9a-fA-F]+)`)
	reGMCStatus = lazyre.New(`VM_CONTEXT1_PROTECTION_FAULT_STATUS\s+(0x[0-9a-fA-F]+)`)
	reGMCVMF    = lazyre.New(`VM fault \(0x[0-9a-fA-F]+, vmid (\d+)(?:, pasid \d+)?\) at page \d+, (read from|write to) '([^']*)'`)
	reBDF       = lazyre.New(`amdgpu (\S+):`)
	rePCIBDF    = lazyre.New(`\b([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b`)
	reOOMKill   = lazyre.New(`oom-kill:.*?task=([^,]+),pid=(\d+)`)
	// "python invoked oom-killer: gfp_mask=…" opens the OOM killer's report;
	// the process named is the one whose allocation failed, not the victim
	reOOMInvoked = lazyre.New(`(\S+) invoked oom-killer: gfp_mask=`)
	reOOMKilled  = lazyre.New(`(?:Out of memory|Memory cgroup out of memory): Killed process (\d+) \(([^)]*)\)(?: total-vm:(\d+)kB, anon-rss:(\d+)kB)?`)
	// Kernels before 4.19 printed the victim on a line of its own after
	// "Out of memory: Kill process N (x) score S or sacrifice child"; the
	// kB accounting that follows is the kernel's signature, so prose ("Killed
	// processes are restarted") never matches. Enterprise kernels put the
	// owner in it: RHEL 7 (3.10) "Killed process N (x), UID 0, total-vm:…",
	// RHEL 6 (2.6.32) "Killed process N, UID 0, (x) total-vm:…".
	reOOMKilledBare = lazyre.New(`(?:^|[\]:] )Killed process (\d+)(?:, UID \d+,)? \(([^)]*)\),?(?: UID \d+,)? total-vm:(\d+)kB, anon-rss:(\d+)kB`)
	// The OOM reaper frees a victim's memory after the kill ("oom_reaper:
	// reaped process 25315 (python3), now anon-rss:0kB, …"): it reaps only
	// OOM victims, so its line names the victim when a grep dropped the
	// "Killed process" line.
	reOOMReaped  = lazyre.New(`oom_reaper: reaped process (\d+) \(([^)]*)\)`)
	reRingTO     = lazyre.New(`ring (\S+) timeout(?:, signaled seq=(\d+), emitted seq=(\d+))?`)
	reMESFail    = lazyre.New(`MES failed to respon(?:d to|se) msg=(\w+)`) // "response": kernels before 6.10
	reXidCause   = lazyre.New(`caused by previous Xid (\d+)`)
	reXid        = lazyre.New(`NVRM: Xid \(([^)]*)\): (\d+),(?: pid=(\d+|'[^']*'),)?(?: name=([^,]*),)?\s*(.*)`)
	reSuspendPID = lazyre.New(`Failed to suspend process pid (\d+)`)
	reVRAM       = lazyre.New(`(\d+)M of VRAM memory ready|VRAM: (\d+)M`)
	// the faulting instruction of a kernel oops inside a GPU driver module:
	// "RIP: 0010:amdgpu_get_dpm_state+0x4b/0xb0 [amdgpu]" (4.16+),
	// "IP: kfd_dbgmgr_wave_control+0x12/0x60 [amdgpu]" and
	// "IP: [<ffffffffc01cc246>] amdgpu_bo_list_set+0x196/0x3d0 [amdgpu]" (older)
	reOopsIP = lazyre.New(`\b(?:RIP|IP): (?:\d{4}:)?(?:\[<[0-9a-f]+>\] )?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+ \[(amdgpu|amdkfd|amdttm|amdkcl|amd_sched|gpu_sched)\]`)
)

func (p *dmesgParser) beginFile(*Session) {
	p.recs = map[string]*pageFault{}
	p.timeout, p.nvGPU, p.nvGPULine = 0, "", 0
	p.orphans, p.headers = map[string]*pageFault{}, map[string]bool{}
	p.oops = 0
	p.pendProc, p.pendLine, p.pendEv = map[string]pfLine{}, map[string]int{}, map[string]Evidence{}
}

func (p *dmesgParser) endFile() {
	for _, k := range sortedRecKeys(p.orphans) {
		if o := p.orphans[k]; !p.headers[k] && p.recs[k] == nil && o.faulted {
			p.recs[k] = o
		}
	}
	for _, k := range sortedRecKeys(p.recs) {
		p.flush(k)
	}
}

func sortedRecKeys(m map[string]*pageFault) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// kernelEvent is one non-page-fault kernel-log line as a typed fact.
type kernelEvent struct {
	kind    string // oom_kill | xnack_on | svm_miss | xid | reset | kfd_resume | ras | vram | oops | oops_ip
	pid     int
	task    string
	rssKB   string // anon-rss of a killed process
	vmKB    string
	cgroup  bool   // "Memory cgroup out of memory"
	bdf     string // amdgpu device
	reason  string // reset: MES message / ring timeout / "GPU reset"; ras: what the row names
	strong  bool   // reset: a line that proves the reset (begin, MES failure, timeout, MODEn, BACO)
	susPID  string // reset: "Failed to suspend process pid N"
	timeout bool   // reset: a ring / job timeout (the hung job's process line follows)
	vram    string
	fn      string // oops_ip: the driver function the oops stopped in
	module  string // oops_ip: its module ([amdgpu], [amdkfd], …)
}

// extractKernelEvent reads the OOM killer, SVM/XNACK, reset/hang, KFD and
// RAS lines of dmesg / journald / syslog; it keeps no state and decides no
// class.
func extractKernelEvent(t string) (kernelEvent, bool) {
	switch {
	case strings.Contains(t, "XNACK is enabled"):
		return kernelEvent{kind: "xnack_on"}, true
	case strings.Contains(t, "failed to find prange"), strings.Contains(t, "not in any svm range"):
		return kernelEvent{kind: "svm_miss"}, true
	case strings.Contains(t, "invoked oom-killer:"):
		if m := reOOMInvoked.FindStringSubmatch(t); m != nil {
			return kernelEvent{kind: "oom_invoked", task: m[1]}, true
		}
		return kernelEvent{}, false
	case strings.Contains(t, "oom-kill:"):
		if m := reOOMKill.FindStringSubmatch(t); m != nil {
			return kernelEvent{kind: "oom_kill", pid: atoiDef(m[2], 0), task: m[1]}, true
		}
		return kernelEvent{}, false
	case strings.Contains(t, "Killed process"):
		if m := reOOMKilled.FindStringSubmatch(t); m != nil {
			return kernelEvent{kind: "oom_kill", pid: atoiDef(m[1], 0), task: m[2], vmKB: m[3], rssKB: m[4], cgroup: strings.HasPrefix(t, "Memory cgroup")}, true
		}
		if m := reOOMKilledBare.FindStringSubmatch(t); m != nil {
			return kernelEvent{kind: "oom_kill", pid: atoiDef(m[1], 0), task: m[2], vmKB: m[3], rssKB: m[4]}, true
		}
		return kernelEvent{}, false
	case strings.Contains(t, "oom_reaper: reaped process"):
		if m := reOOMReaped.FindStringSubmatch(t); m != nil {
			return kernelEvent{kind: "oom_kill", pid: atoiDef(m[1], 0), task: m[2]}, true
		}
		return kernelEvent{}, false
	case strings.Contains(t, "NVRM: Xid"), strings.Contains(t, "ACCESS_TYPE_"):
		return kernelEvent{kind: "xid"}, true
	case strings.Contains(t, "NVRM") && containsAny(t, "GSP RPC timeout", "_kgspIsHeartbeatTimedOut: Heartbeat timed out", "_kgspLogRpcTimeout: ***"):
		// the GPU's GSP firmware stopped answering without an Xid 119 line:
		// the open module's heartbeat check and RPC-timeout banner
		return kernelEvent{kind: "gsp_timeout", bdf: submatch(rePCIBDF, t)}, true
	case strings.Contains(t, "NVRM") && strings.Contains(t, "[NV_ERR_RESET_REQUIRED]"):
		// the resource manager's own status: a call failed because the GPU
		// must be reset first ("nvAssertOkFailedNoLog: Assertion failed:
		// Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from
		// …"; nvCheckOkFailedNoLog's "Check failed:" says the same)
		return kernelEvent{kind: "reset_required", bdf: submatch(rePCIBDF, t)}, true
	case strings.Contains(t, "NVRM") && strings.Contains(t, "fallen off the bus"):
		// without an Xid: "NVRM: GPU at 0000:01:00.0 has fallen off the
		// bus.", or the open driver's three lines whose BDF is on the first
		return kernelEvent{kind: "offbus", bdf: submatch(rePCIBDF, t)}, true
	case strings.Contains(t, "NVRM: The NVIDIA GPU "):
		return kernelEvent{kind: "nvgpu", bdf: submatch(rePCIBDF, t)}, true
	case strings.Contains(t, "BUG: unable to handle kernel"), strings.Contains(t, "BUG: kernel NULL pointer dereference"),
		strings.Contains(t, "general protection fault"), strings.Contains(t, "Oops: "):
		// a kernel oops header; the RIP/IP line after it says where
		return kernelEvent{kind: "oops"}, true
	case strings.Contains(t, "IP: "):
		if m := reOopsIP.FindStringSubmatch(t); m != nil {
			return kernelEvent{kind: "oops_ip", fn: m[1], module: m[2]}, true
		}
	}
	// amdgpu_job_timedout names the hung job's process on the next line:
	// " Process Main pid 65975 thread vkd3d_queue pid 66181" (6.x),
	// "Process information: process Xorg pid 1234 thread …" (5.x)
	if m := findIf(t, "rocess ", rePFProcess); m != nil {
		return kernelEvent{kind: "process", pid: atoiDef(m[2], 0), task: m[1], bdf: submatch(reBDF, t)}, true
	}
	if m := findIf(t, "VRAM", reVRAM); m != nil {
		v := m[1]
		if v == "" {
			v = m[2]
		}
		return kernelEvent{kind: "vram", vram: v}, true
	}
	return matchAMDGPUMessage(t)
}

// line is a thin loop: page-fault decode lines go to the record assembler,
// the rest to extractKernelEvent and its rule.
func (p *dmesgParser) line(l *line) {
	t := l.text
	if containsAny(t, pageFaultKeywords...) && p.pageFault(l) {
		return
	}
	if !containsAny(t, dmesgGate...) {
		return
	}
	if e, ok := extractKernelEvent(t); ok {
		p.applyKernelEvent(l, e)
	}
}

// applyKernelEvent is the rule for kernel events: the OOM killer's victim
// (host_oom_kill), reset/hang lines (gpu_hang_reset; weaker for lines that
// only follow a reset), KFD userptr restore failures (dma_driver_fault),
// RAS/ECC (ecc_ras); SVM/XNACK and VRAM lines are facts the memory-fault
// and capacity rules read later.
func (p *dmesgParser) applyKernelEvent(l *line, e kernelEvent) {
	s := p.s
	switch e.kind {
	case "xnack_on", "svm_miss":
		s.format("dmesg")
		ev := l.ev(s)
		if e.kind == "xnack_on" {
			s.b.facts.xnackOn = &ev
		} else if s.b.facts.svmMiss == nil {
			s.b.facts.svmMiss = &ev
		}
	case "oom_kill":
		s.format("dmesg_oom_kill")
		a := s.b.add(s, ClassHostOOMKill, l, 0.95)
		a.memProof = true
		a.setPID(e.pid)
		a.kernelNamed(e.pid, l.ev(s))
		a.setStr(&a.f.Process, e.task)
		a.setStr(&a.f.Signal, "SIGKILL")
		if e.rssKB != "" {
			a.detail("anon_rss_kB", e.rssKB)
			a.detail("anon_rss", humanKB(e.rssKB))
			a.detail("total_vm_kB", e.vmKB)
		}
		if e.cgroup {
			a.detail("constraint", "memory cgroup limit (container)")
		}
	case "oom_invoked":
		// the report's first line: the OOM killer ran even when the paste
		// stops before the victim line (which then names the pid)
		s.format("dmesg_oom_kill")
		a := s.b.add(s, ClassHostOOMKill, l, 0.8)
		a.memProof = true
		a.setStr(&a.f.Signal, "SIGKILL")
		a.detail("invoked_by", e.task)
	case "xid":
		p.xid(l)
	case "gsp_timeout":
		s.format("nvidia_xid")
		a := s.b.add(s, ClassGPUHangReset, l, 0.8)
		a.setStr(&a.f.Device, e.bdf)
		a.addReason("the GPU's GSP firmware stopped answering (RPC / heartbeat timeout): the GPU needs a reset")
	case "reset_required":
		s.format("nvidia_xid")
		a := s.b.add(s, ClassGPUHangReset, l, 0.8)
		a.setStr(&a.f.Device, e.bdf)
		a.addReason("the NVIDIA driver refuses work on this GPU until it is reset (NV_ERR_RESET_REQUIRED): an unrecoverable GPU state")
	case "nvgpu":
		p.nvGPU, p.nvGPULine = e.bdf, l.no
	case "offbus":
		// the GPU stopped answering on PCIe (power, thermals, link, driver):
		// a device loss, reported like Xid 79
		if e.bdf == "" && p.nvGPU != "" && l.no-p.nvGPULine <= 3 {
			e.bdf = p.nvGPU
		}
		s.format("nvidia_xid")
		a := s.b.add(s, ClassGPUHangReset, l, 0.85)
		a.strong = true
		a.setStr(&a.f.Device, e.bdf)
		a.addReason("GPU has fallen off the bus (no longer responding on PCIe)")
	case "vram":
		if s.b.facts.vramText == "" {
			s.b.facts.vramText = e.vram + " MiB VRAM reported by the driver"
		}
	case "reset":
		s.format("dmesg_gpu_reset")
		conf := 0.6
		if e.strong {
			conf = 0.9
		}
		a := s.b.add(s, ClassGPUHangReset, l, conf)
		a.setStr(&a.f.Device, e.bdf)
		if e.reason != "" {
			a.addReason(e.reason)
		}
		a.detail("suspend_failed_pid", e.susPID)
		if e.timeout {
			p.timeout = l.no
		}
	case "process":
		// the process of the job that timed out: only right after the
		// timeout line (a process line elsewhere belongs to a page fault)
		if p.timeout > 0 && l.no-p.timeout <= 2 {
			if a := s.b.get(ClassGPUHangReset); a != nil {
				a.setPID(e.pid)
				a.kernelNamed(e.pid, l.ev(s))
				a.setStr(&a.f.Process, e.task)
				a.evidence(l.ev(s))
			}
		}
		p.timeout = 0
	case "oops":
		p.oops = l.no
	case "oops_ip":
		// a kernel oops whose faulting instruction is in the GPU driver: a
		// driver bug (the kernel's own NULL dereference / GP fault), neither
		// a shader's memory fault nor a user-space segfault. A RIP line
		// without an oops header just before it (a WARN splat) is no crash.
		if p.oops == 0 || l.no-p.oops > 12 {
			return
		}
		p.oops = 0
		s.format("dmesg_amdgpu_oops")
		a := s.b.add(s, ClassDMADriverFault, l, 0.8)
		a.strong = true
		a.addReason("kernel oops in the " + e.module + " driver at " + e.fn)
		a.detail("driver_function", e.fn)
		a.detail("driver_module", e.module)
		a.note("the kernel itself faulted inside the GPU driver (a driver bug, often reachable from user space): not a shader fault and not a user-space segfault")
	case "kfd_resume":
		s.format("dmesg_kfd")
		a := s.b.add(s, ClassDMADriverFault, l, 0.55)
		a.addReason("KFD userptr restore failed (Failed to resume KFD)")
	case "ras":
		s.format("dmesg_ras")
		a := s.b.add(s, ClassECCRAS, l, 0.85)
		a.setStr(&a.f.Device, e.bdf)
		if e.reason != "" {
			a.addReason(e.reason)
		}
		a.addReason("RAS / ECC error reported by the driver")
	}
}

// pfLine is one line of the amdgpu page-fault decode as a typed fact
// (extractPageFaultLine). Kernel wordings it covers, newest first:
// "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)" with the
// process on its own line ("Process python pid N thread …", 6.x; " in
// process …)", " for process …)", 5.x), "[gfxhub0] no-retry page fault (…,
// for process P pid N thread T pid M)" (5.x–6.x), "[mmhub] VMC page fault
// (src_id:0 ring:153 vm_id:0 pas_id:0)" + "at page 0x… from 18" (4.1x), then
// "in page starting at address 0x… from [IH ]client …", the (GC)VM_L2
// status, "Faulty UTCL2 client ID: TCP (0x8)" and the status bit fields.
type pfLine struct {
	kind       pfKind
	bdf        string
	hub, retry string
	ring, vmid string
	process    string
	pid        int
	addr       string
	ihClient   string
	status     string
	client     string
	flag, val  string
}

type pfKind int

const (
	pfNone pfKind = iota
	pfHeader
	pfProcess
	pfAddr
	pfStatus
	pfClient
	pfFlag
)

// extractPageFaultLine reads one decode line; it keeps no state.
func extractPageFaultLine(t string) (pfLine, bool) {
	x := pfLine{}
	if strings.Contains(t, "amdgpu ") {
		x.bdf = submatch(reBDF, t)
	}
	if m := findIf(t, "page fault (src_id:", rePFHeader); m != nil {
		if m[1] != "" {
			x.bdf = m[1]
		}
		x.kind, x.hub, x.retry, x.ring, x.vmid = pfHeader, m[2], strings.TrimSpace(m[3]), m[5], m[6]
		if x.retry == "VMC" || x.retry == "UTCL2" {
			x.retry = ""
		}
		if m[9] != "" {
			x.process, x.pid = m[8], atoiDef(m[9], 0)
		}
		return x, true
	}
	if strings.Contains(t, "GPU fault detected: ") || strings.Contains(t, "VM_CONTEXT1_PROTECTION_FAULT_") || strings.Contains(t, "VM fault (") {
		return extractGMCFaultLine(t, x)
	}
	switch {
	case strings.Contains(t, "rocess "):
		if m := rePFProcess.FindStringSubmatch(t); m != nil {
			x.kind, x.process, x.pid = pfProcess, m[1], atoiDef(m[2], 0)
			return x, true
		}
	case strings.Contains(t, " page "):
		if m := rePFAddr.FindStringSubmatch(t); m != nil {
			x.kind, x.addr, x.ihClient = pfAddr, m[1], strings.TrimSpace(m[2])
			return x, true
		}
	case strings.Contains(t, "VM_L2_PROTECTION_FAULT_STATUS:"):
		if m := rePFStatus.FindStringSubmatch(t); m != nil {
			x.kind, x.status = pfStatus, m[1]
			return x, true
		}
	case strings.Contains(t, "Faulty UTCL2 client ID: "):
		if m := rePFClient.FindStringSubmatch(t); m != nil {
			x.kind, x.client = pfClient, strings.TrimSpace(m[1])
			return x, true
		}
	case containsAny(t, "_FAULTS: ", "_ERROR: ", "RW: "):
		if m := rePFFlag.FindStringSubmatch(t); m != nil {
			x.kind, x.flag, x.val = pfFlag, m[1], m[2]
			return x, true
		}
	}
	return pfLine{}, false
}

// extractGMCFaultLine reads the pre-gfx9 decode (reGMCHeader …) into the
// same facts: the header opens the record (with its process when printed),
// FAULT_ADDR is the faulting page number (the address is page << 12), the
// "VM fault (…)" line names the vmid and the client ('TC3' = texture cache,
// a shader's vector memory access).
func extractGMCFaultLine(t string, x pfLine) (pfLine, bool) {
	if m := reGMCHeader.FindStringSubmatch(t); m != nil {
		x.kind, x.hub = pfHeader, "gmc"
		if m[3] != "" {
			x.process, x.pid = m[2], atoiDef(m[3], 0)
		}
		return x, true
	}
	if m := reGMCAddr.FindStringSubmatch(t); m != nil {
		x.kind = pfAddr
		if v, ok := addrValue(m[1]); ok {
			x.addr = "0x" + strconv.FormatUint(v<<12, 16)
		}
		return x, x.addr != ""
	}
	if m := reGMCStatus.FindStringSubmatch(t); m != nil {
		x.kind, x.status = pfStatus, m[1]
		return x, true
	}
	if m := reGMCVMF.FindStringSubmatch(t); m != nil {
		x.kind, x.vmid, x.client = pfClient, m[1], m[3]
		if m[2] == "write to" {
			x.flag, x.val = "RW", "0x1"
		} else {
			x.flag, x.val = "RW", "0x0"
		}
		return x, true
	}
	return pfLine{}, false
}

// pageFault assembles decode lines into one record per device (several
// GPUs interleave their decodes); returns true when the line belonged to it.
func (p *dmesgParser) pageFault(l *line) bool {
	x, ok := extractPageFaultLine(l.text)
	if !ok {
		return false
	}
	if x.kind == pfHeader {
		p.headers[x.bdf] = true
		p.flush(x.bdf)
		if len(p.recs) > 64 {
			for _, k := range sortedRecKeys(p.recs) {
				p.flush(k)
			}
		}
		pf := &pageFault{bdf: x.bdf, hub: x.hub, retry: x.retry, ring: x.ring, vmid: x.vmid, flags: map[string]string{}, first: keepLine(l)}
		pf.process, pf.pid = x.process, x.pid
		pf.lines = append(pf.lines, l.ev(p.s))
		p.recs[x.bdf] = pf
		p.s.format("dmesg_page_fault")
		return true
	}
	pf := p.recs[x.bdf]
	if pf == nil && len(p.recs) == 1 {
		// decode lines without "amdgpu <BDF>:" (some kernels): the only open record
		for _, r := range p.recs {
			pf = r
		}
	}
	if pf == nil && (x.kind == pfFlag || x.kind == pfStatus || x.kind == pfClient) && x.bdf != "" && !p.headers[x.bdf] {
		o := p.orphans[x.bdf]
		if o == nil {
			o = &pageFault{bdf: x.bdf, flags: map[string]string{}, first: keepLine(l), headless: true}
			p.orphans[x.bdf] = o
			p.s.format("dmesg_page_fault")
		}
		switch x.kind {
		case pfStatus:
			o.status = x.status
		case pfClient:
			o.client = x.client
		default:
			o.flags[x.flag] = x.val
		}
		// a permission / mapping fault bit set: the fields are a fault's
		if (x.flag == "PERMISSION_FAULTS" || x.flag == "MAPPING_ERROR") && !isZeroHex(x.val) {
			o.faulted = true
		}
		if len(o.lines) < 12 {
			o.lines = append(o.lines, l.ev(p.s))
		}
		return true
	}
	if pf == nil {
		// a paste that begins mid-block: the address line opens a record
		// without its header (hub and vmid unknown); the process line that
		// follows a header ("for process P pid N …)", " Process P pid N …")
		// may come first and is kept for it — it also stays free for the
		// timeout rule, whose job line has the same words
		if x.kind == pfProcess && x.bdf != "" {
			p.pendProc[x.bdf], p.pendLine[x.bdf], p.pendEv[x.bdf] = x, l.no, l.ev(p.s)
			return false
		}
		if x.kind != pfAddr {
			return false
		}
		pf = &pageFault{bdf: x.bdf, flags: map[string]string{}, first: keepLine(l), headless: true}
		if pr, ok := p.pendProc[x.bdf]; ok && l.no-p.pendLine[x.bdf] <= 4 {
			// the decode's own order: process line, then the address; a few
			// lines apart when another GPU's decode interleaves
			pf.process, pf.pid = pr.process, pr.pid
			pf.lines = append(pf.lines, p.pendEv[x.bdf])
		}
		delete(p.pendProc, x.bdf)
		p.recs[x.bdf] = pf
		p.s.format("dmesg_page_fault")
	}
	switch x.kind {
	case pfProcess:
		if pf.process != "" {
			return false
		}
		pf.process, pf.pid = x.process, x.pid
	case pfAddr:
		if pf.addr != "" {
			// a new fault in the same burst without a header: close the record
			p.flush(pf.bdf)
			return true
		}
		pf.addr = x.addr
		if x.ihClient != "" {
			pf.flags["ih_client"] = x.ihClient
		}
	case pfStatus:
		pf.status = x.status
	case pfClient:
		pf.client = x.client
		if x.vmid != "" && pf.vmid == "" {
			pf.vmid = x.vmid
		}
		if x.flag != "" {
			pf.flags[x.flag] = x.val
		}
	case pfFlag:
		pf.flags[x.flag] = x.val
	}
	if len(pf.lines) < 12 {
		pf.lines = append(pf.lines, l.ev(p.s))
	}
	return true
}

// flush is the page-fault rule: a completed record becomes a finding.
// Defeaters: a continuation record (status 0) of a fault already reported
// for the same pid only adds its page; a vmid-0 fault without a process
// during a reset on that GPU is the reset's debris. The client decides the
// class (SDMA / CPF: the driver's copy / fetch path, not a shader).
func (p *dmesgParser) flush(bdf string) {
	pf := p.recs[bdf]
	if pf == nil {
		return
	}
	delete(p.recs, bdf)
	s := p.s
	if o := p.orphans[bdf]; o != nil && o.client != "" && pf.client == "" && pf.status == "" && o != pf {
		// a paste that began mid-block: the decode tail before the first
		// header is the same fault burst's, and this record was cut before
		// its own decode — the tail names its client
		pf.client, pf.status = o.client, o.status
		for k, v := range o.flags {
			if _, ok := pf.flags[k]; !ok {
				pf.flags[k] = v
			}
		}
		pf.lines = append(o.lines[:len(o.lines):len(o.lines)], pf.lines...)
		delete(p.orphans, bdf)
	}
	zeroStatus := pf.status != "" && isZeroHex(pf.status)
	class := ClassGPUMemoryFault
	cl := strings.ToUpper(pf.client)
	if strings.HasPrefix(cl, "SDMA") || strings.HasPrefix(cl, "XDMA") || strings.HasPrefix(cl, "CPF") || strings.HasPrefix(cl, "MP0") || strings.HasPrefix(cl, "MP1") {
		// a named client that is no shader: copy engines, the command
		// processor, the platform processors of the multimedia hub. An
		// mmhub fault whose client is unnamed ("client ID: 0x0") stays a
		// memory fault: the hub alone does not name the engine
		class = ClassDMADriverFault
	}
	// a continuation record (status 0, client CB/DB) of an existing fault only adds its page
	if zeroStatus {
		for _, c := range []string{ClassGPUMemoryFault, ClassDMADriverFault} {
			if a := s.b.get(c); a != nil && a.details["dmesg_pid"] != "" && a.details["dmesg_pid"] == itoa(pf.pid) {
				a.f.Count++
				if pf.addr != "" {
					n, _ := normAddr(pf.addr)
					if n != "" && len(a.addresses) < maxList && !containsStr(a.addresses, n) {
						a.addresses = append(a.addresses, n)
					}
				}
				return
			}
		}
	}
	// defeater: a fault in vmid 0 with no process (pid 0) belongs to the
	// driver's own VM; after a reset began on that GPU it is the reset's
	// debris, not an application memory fault
	if pf.vmid == "0" && pf.pid == 0 && !pf.headless {
		if r := s.b.get(ClassGPUHangReset); r != nil && (r.f.Device == "" || pf.bdf == "" || r.f.Device == pf.bdf) {
			for _, e := range pf.lines {
				r.evidence(e)
			}
			r.note("a page fault in vmid 0 (no process) on " + pf.bdf + " during the reset: driver-internal, a consequence of the hang, not an application fault")
			return
		}
	}
	// without a reset the same vmid-0, process-less fault is still the
	// driver's own access (kernel GART: firmware, copy or display engines,
	// module load), not an application kernel's
	kernelVM := pf.vmid == "0" && pf.pid == 0 && !pf.headless
	if kernelVM {
		class = ClassDMADriverFault
	}
	conf := 0.85
	a := s.b.add(s, class, nil, conf)
	if kernelVM {
		a.note("the fault is in vmid 0 with no process: the driver's own VM (firmware / copy / display engines), not an application's memory")
	}
	for _, e := range pf.lines {
		a.evidence(e)
	}
	if pf.first != nil && pf.first.rank >= 0 {
		a.rank(pf.first.rank)
	}
	a.setStr(&a.f.Device, pf.bdf)
	if pf.pid > 0 {
		a.setPID(pf.pid)
		a.detail("dmesg_pid", itoa(pf.pid))
		a.kernelNamed(pf.pid, pidLine(pf.lines, pf.pid))
	}
	a.setStr(&a.f.Process, pf.process)
	if pf.addr != "" {
		a.setAddress(pf.addr)
		a.detail("dmesg_page", pf.addr)
	}
	a.detail("vm_hub", pf.hub)
	a.detail("utcl2_client", pf.client)
	a.detail("fault_status", pf.status)
	a.detail("retry", pf.retry)
	for _, k := range []string{"ih_client", "MORE_FAULTS", "WALKER_ERROR", "PERMISSION_FAULTS", "MAPPING_ERROR", "RW"} {
		if v, ok := pf.flags[k]; ok {
			a.detail(strings.ToLower(k), v)
		}
	}
	a.addReason(dmesgReason(pf))
	if !zeroStatus {
		a.detail("client_meaning", clientMeaning(cl))
	}
}

// pidLine is the decode line that names the faulting process (the header
// or its own "Process … pid N" line), else the first line.
func pidLine(evs []Evidence, pid int) Evidence {
	want := "pid " + itoa(pid)
	for _, e := range evs {
		if strings.Contains(e.Text, want) {
			return e
		}
	}
	if len(evs) > 0 {
		return evs[0]
	}
	return Evidence{}
}

func dmesgReason(pf *pageFault) string {
	var parts []string
	hub := pf.hub
	if hub == "" {
		hub = "vm"
	}
	parts = append(parts, "["+hub+"] page fault")
	if !isZeroHex(pf.flags["WALKER_ERROR"]) && pf.flags["WALKER_ERROR"] != "" || !isZeroHex(pf.flags["MAPPING_ERROR"]) && pf.flags["MAPPING_ERROR"] != "" {
		parts = append(parts, "unmapped page (walker/mapping error: use-after-free or out of bounds past an allocation)")
	} else if pf.flags["PERMISSION_FAULTS"] != "" && !isZeroHex(pf.flags["PERMISSION_FAULTS"]) {
		parts = append(parts, "permission fault (read-only / NX / host-only page)")
	}
	if rw := pf.flags["RW"]; rw != "" {
		if isZeroHex(rw) {
			parts = append(parts, "read")
		} else {
			parts = append(parts, "write")
		}
	}
	return strings.Join(parts, ", ")
}

func clientMeaning(cl string) string {
	switch {
	case strings.HasPrefix(cl, "TCP"):
		return "TCP = shader vector memory access: a kernel bug (out-of-bounds / bad pointer)"
	case strings.HasPrefix(cl, "TC"):
		return "TC = texture cache channel (gfx8 and older): a shader's vector memory access, a kernel bug (out-of-bounds / bad pointer)"
	case strings.HasPrefix(cl, "SDMA"):
		return "SDMA = copy engine (memcpy, IPC): driver / DMA path, not a shader bug"
	case strings.HasPrefix(cl, "XDMA"):
		return "XDMA = the multimedia hub's DMA engine (peer / host copies): driver / DMA path, not a shader bug"
	case strings.HasPrefix(cl, "MP0") || strings.HasPrefix(cl, "MP1"):
		return "MP0/MP1 = platform / system management processor on the multimedia hub: driver / firmware path, not a shader bug"
	case strings.HasPrefix(cl, "CPF"):
		return "CPF = command-processor fetch: bad queue or code-object pointer"
	case strings.HasPrefix(cl, "SQC"):
		return "SQC = instruction / scalar fetch"
	case strings.HasPrefix(cl, "CB") || strings.HasPrefix(cl, "DB"):
		return "CB/DB = graphics render backends"
	}
	return ""
}

func isZeroHex(s string) bool {
	v, ok := addrValue(s)
	return ok && v == 0
}

func humanKB(kb string) string {
	v := atoi64(kb)
	if v <= 0 {
		return ""
	}
	return formatBytes(float64(v) * 1024)
}

// xidFact is one Xid record: the driver's own line ("NVRM: Xid (PCI:…): 31,
// pid=…, name=…, … MMU Fault: … faulted @ 0x7d58_a0000000. Fault is of
// type FAULT_PDE ACCESS_TYPE_VIRT_READ") or a condensed copy of it a
// reporter or a tool made from kern.log, which keeps the code and the MMU
// decode but drops the NVRM prefix, the BDF and the pid (vllm#53726's
// table "Xid 31 GPC1 GPCCLIENT_T1_9  @ 0xede3_7fa00000  FAULT_PDE
// ACCESS_TYPE_VIRT_READ"; "NVRM Xid 31: MMU Fault, FAULT_PTE,
// ACCESS_TYPE_VIRT_READ @ 0x20_0a064000"; "NVRM: Xid 31 ... MMU Fault: …
// FAULT_PDE ACCESS_TYPE_VIRT_READ"). A condensed line counts only with the
// MMU decode (fault type and access type): "Xid 31" alone is prose.
type xidFact struct {
	device, pid, process, detail string
	code                         int
	address                      string // the faulting VA, underscores removed
	condensed                    bool
}

var (
	reXidShort   = lazyre.New(`(?:^|[\s:(\[])Xid:?\s+(\d{1,3})\b[:,]?\s*(.*)`)
	reXidMMU     = lazyre.New(`\bFAULT_[A-Z_]+\b.*\bACCESS_TYPE_[A-Z_]+`)
	reXidAddress = lazyre.New(`(?:faulted )?@\s*(0x[0-9a-fA-F_]+)`)
)

func extractXid(t string) (xidFact, bool) {
	if m := findIf(t, "NVRM: Xid (", reXid); m != nil {
		return xidFact{device: m[1], code: atoiDef(m[2], 0), pid: m[3], process: m[4], detail: strings.TrimSpace(m[5]),
			address: xidAddress(m[5])}, true
	}
	if !strings.Contains(t, "ACCESS_TYPE_") || !strings.Contains(t, "Xid") || !reXidMMU.MatchString(t) {
		return xidFact{}, false
	}
	m := reXidShort.FindStringSubmatch(t)
	if m == nil {
		return xidFact{}, false
	}
	return xidFact{code: atoiDef(m[1], 0), detail: strings.Join(strings.Fields(m[2]), " "), address: xidAddress(m[2]), condensed: true}, true
}

func xidAddress(t string) string {
	if !strings.Contains(t, "@") {
		return ""
	}
	a := strings.ReplaceAll(submatch(reXidAddress, t), "_", "")
	if len(a) <= 2 {
		return ""
	}
	return a
}

// xid is the Xid rule: the class from the catalog (xidClass), or the
// cause's class for a record "caused by previous Xid N"; a condensed
// record is less sure than the driver's own line.
func (p *dmesgParser) xid(l *line) {
	s := p.s
	x, ok := extractXid(l.text)
	if !ok {
		return
	}
	s.format("nvidia_xid")
	code := itoa(x.code)
	class, conf := xidClass(x.code, x.detail)
	reason := "Xid " + code + ": " + x.detail
	// "Xid 45, … Ch 00000001 caused by previous Xid 149": the channel
	// teardown is the consequence, the earlier Xid its cause and class
	if prev := atoiDef(submatchIf(x.detail, "caused by previous Xid", reXidCause), 0); prev > 0 {
		if c, k := xidClass(prev, ""); c != "" {
			class, conf, x.code = c, k, prev
			reason = "Xid " + itoa(prev) + " (cause of Xid " + code + ": " + x.detail + ")"
		}
	}
	if x.code == 13 && strings.Contains(x.detail, "Illegal Instruction") {
		// the SM's warp exception names what trapped: "Illegal Instruction
		// Encoding" / "… Parameter" is code the SM cannot run, not an
		// out-of-range address
		class, conf = ClassIllegalInstruction, 0.8
	}
	if class == "" {
		return
	}
	if x.condensed {
		conf -= 0.15
	}
	a := s.b.add(s, class, l, conf)
	a.setStr(&a.f.Device, x.device)
	a.addReason(reason)
	if pid := atoiDef(x.pid, 0); pid > 0 {
		a.setPID(pid)
	}
	a.setStr(&a.f.Process, x.process)
	if x.condensed && x.address != "" {
		a.setAddress(x.address)
	}
	a.detail("xid", itoa(x.code))
	a.detail("xid_meaning", xidName(x.code))
}

// pageFaultKeywords: a line can be part of a page-fault decode only when
// it holds one of them (the decode lines of kernels that print no
// "amdgpu <BDF>:" prefix hold the last five).
var pageFaultKeywords = []string{"amdgpu", "GPU fault detected: ", "VM_CONTEXT1_PROTECTION_FAULT_", "VM fault (", "Faulty UTCL2", "_FAULTS:", "_ERROR:", "RW:", "page fault (src_id:", "at page 0x", "in page starting", "VM_L2_PROTECTION"}

// dmesgKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var dmesgKeywords = append([]string{"ACCESS_TYPE_", "GPU fault detected: ", "VM_CONTEXT1_PROTECTION_FAULT_", "VM fault (", "Faulty UTCL2", "_FAULTS:", "_ERROR:", "RW:", "page fault (src_id:", "at page 0x", "in page starting", "VM_L2_PROTECTION"}, dmesgGate...)

// dmesgGate: a line that is no page-fault decode line reaches
// extractKernelEvent only when it holds one of them. KFD's queue-preemption
// lines of 4.x kernels carry no "amdgpu" prefix ("qcm fence wait loop
// timeout expired", "The cp might be in an unrecoverable state …").
var dmesgGate = []string{"amdgpu", "Out of memory", "oom-kill", "oom_reaper: reaped", "MES", "reset", "ring ", "wedged", "Hardware Error", "ECC", "RAS", "aca entry", "NVRM", "KFD", "Killed process", "uncorrectable", "BUG: ", "Oops: ", "protection fault", "IP: ", "ACCESS_TYPE_", "Ring timed out", "to send message", "qcm fence", "cp might be in", "preemption time out", "to a killed entity"}
