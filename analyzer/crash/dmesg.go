package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// dmesgParser reads amdgpu kernel messages (docs section 11): page faults in
// every known layout, hang/reset/firmware lines, RAS/ECC, driver-side DMA
// failures, the host OOM killer and NVIDIA Xid lines.
type dmesgParser struct {
	s    *Session
	recs map[string]*pageFault // open page-fault record per device (BDF)
}

type pageFault struct {
	bdf, hub   string
	process    string
	pid        int
	addr       string
	client     string
	status     string
	flags      map[string]string
	retry      string
	ring, vmid string
	lines      []Evidence
	first      *line
}

var (
	rePFHeader   = lazyre.New(`(?:amdgpu (\S+): )?(?:amdgpu: )?\[(\w+)\] (retry |no-retry )?page fault \(src_id:(\d+) ring:(\d+) vmid:(\d+) pasid:(\d+)(?:, for process (\S+) pid (\d+) thread (\S+) pid (\d+))?`)
	rePFProcess  = lazyre.New(`(?:for process|in process|Process) (\S+) pid (\d+) thread (\S+) pid (\d+)`)
	rePFAddr     = lazyre.New(`in page starting at address (0x[0-9a-fA-F]+)(?: from (?:IH )?client (.*))?`)
	rePFStatus   = lazyre.New(`(?:GC)?VM_L2_PROTECTION_FAULT_STATUS:(0x[0-9a-fA-F]+)`)
	rePFClient   = lazyre.New(`Faulty UTCL2 client ID: (.*)$`)
	rePFFlag     = lazyre.New(`\b(MORE_FAULTS|WALKER_ERROR|PERMISSION_FAULTS|MAPPING_ERROR|RW): (0x[0-9a-fA-F]+)`)
	reBDF        = lazyre.New(`amdgpu (\S+):`)
	reOOMKill    = lazyre.New(`oom-kill:.*?task=([^,]+),pid=(\d+)`)
	reOOMKilled  = lazyre.New(`(?:Out of memory|Memory cgroup out of memory): Killed process (\d+) \(([^)]*)\)(?: total-vm:(\d+)kB, anon-rss:(\d+)kB)?`)
	reRingTO     = lazyre.New(`ring (\S+) timeout(?:, signaled seq=(\d+), emitted seq=(\d+))?`)
	reMESFail    = lazyre.New(`MES failed to respond to msg=(\w+)`)
	reXid        = lazyre.New(`NVRM: Xid \(([^)]*)\): (\d+),(?: pid=(\d+|'<unknown>'),)?(?: name=([^,]*),)?\s*(.*)`)
	reSuspendPID = lazyre.New(`Failed to suspend process pid (\d+)`)
	reVRAM       = lazyre.New(`(\d+)M of VRAM memory ready|VRAM: (\d+)M`)
)

func (p *dmesgParser) beginFile(*Session) { p.recs = map[string]*pageFault{} }

func (p *dmesgParser) endFile() {
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

func (p *dmesgParser) line(l *line) {
	t := l.text
	s := p.s
	if strings.Contains(t, "amdgpu") || strings.Contains(t, "Faulty UTCL2") || (containsAny(t, "_FAULTS:", "_ERROR:", "RW:") && rePFFlag.MatchString(t)) {
		if p.pageFault(l) {
			return
		}
	}
	if !containsAny(t, "amdgpu", "Out of memory", "oom-kill", "MES", "reset", "ring ", "wedged", "Hardware Error", "ECC", "RAS", "aca entry", "NVRM", "KFD", "Killed process", "uncorrectable") {
		return
	}
	switch {
	case strings.Contains(t, "XNACK is enabled") || strings.Contains(t, "failed to find prange") || strings.Contains(t, "not in any svm range"):
		// SVM / XNACK facts: read by the memory-fault rule (finalize.go)
		s.format("dmesg")
		ev := l.ev(s)
		if strings.Contains(t, "XNACK is enabled") {
			s.b.facts.xnackOn = &ev
		} else if s.b.facts.svmMiss == nil {
			s.b.facts.svmMiss = &ev
		}
		return
	case strings.Contains(t, "oom-kill:"):
		if m := reOOMKill.FindStringSubmatch(t); m != nil {
			s.format("dmesg_oom_kill")
			a := s.b.add(s, ClassHostOOMKill, l, 0.95)
			a.setPID(atoiDef(m[2], 0))
			a.setStr(&a.f.Process, m[1])
			a.setStr(&a.f.Signal, "SIGKILL")
		}
		return
	case strings.Contains(t, "Killed process"):
		if m := reOOMKilled.FindStringSubmatch(t); m != nil {
			s.format("dmesg_oom_kill")
			a := s.b.add(s, ClassHostOOMKill, l, 0.95)
			a.setPID(atoiDef(m[1], 0))
			a.setStr(&a.f.Process, m[2])
			a.setStr(&a.f.Signal, "SIGKILL")
			if m[4] != "" {
				a.detail("anon_rss_kB", m[4])
				a.detail("anon_rss", humanKB(m[4]))
				a.detail("total_vm_kB", m[3])
			}
			if strings.HasPrefix(t, "Memory cgroup") {
				a.detail("constraint", "memory cgroup limit (container)")
			}
		}
		return
	case strings.Contains(t, "NVRM: Xid"):
		p.xid(l)
		return
	}
	if m := findIf(t, "VRAM", reVRAM); m != nil && s.b.facts.vramText == "" {
		v := m[1]
		if v == "" {
			v = m[2]
		}
		s.b.facts.vramText = v + " MiB VRAM reported by the driver"
	}
	// hang / reset / firmware
	switch {
	case strings.Contains(t, "MES failed to respond"), strings.Contains(t, "failed to remove hardware queue from MES"),
		strings.Contains(t, "MES might be in unrecoverable state"), strings.Contains(t, "GPU reset begin"),
		strings.Contains(t, "device wedged"), strings.Contains(t, "Ring ") && strings.Contains(t, "reset failed"),
		strings.Contains(t, "Queue preemption time out"), strings.Contains(t, "timeout") && reRingTO.MatchString(t),
		strings.Contains(t, "GPU reset") && strings.Contains(t, "succeeded"), strings.Contains(t, "amdgpu_job_timedout"),
		strings.Contains(t, "Failed to evict"), strings.Contains(t, "Failed to suspend process"),
		strings.Contains(t, "ring reset"), strings.Contains(t, "MODE1 reset"), strings.Contains(t, "MODE2 reset"), strings.Contains(t, "BACO reset"),
		strings.Contains(t, "devcoredump"), strings.Contains(t, "Dumping IP State"):
		s.format("dmesg_gpu_reset")
		conf := 0.6
		if containsAny(t, "GPU reset begin", "MES failed", "device wedged", "timeout", "MODE1", "MODE2", "BACO", "unrecoverable") {
			conf = 0.9
		}
		a := s.b.add(s, ClassGPUHangReset, l, conf)
		if b := submatch(reBDF, t); b != "" {
			a.setStr(&a.f.Device, b)
		}
		if m := reMESFail.FindStringSubmatch(t); m != nil {
			a.addReason("MES failed to respond to msg=" + m[1])
		}
		if m := reRingTO.FindStringSubmatch(t); m != nil && strings.Contains(t, "timeout") {
			a.addReason("ring " + m[1] + " timeout")
		}
		if strings.Contains(t, "GPU reset begin") {
			a.addReason("GPU reset")
		}
		if m := reSuspendPID.FindStringSubmatch(t); m != nil {
			a.detail("suspend_failed_pid", m[1])
		}
		return
	case strings.Contains(t, "Failed to resume KFD"), strings.Contains(t, "restore_userptr_worker"):
		s.format("dmesg_kfd")
		a := s.b.add(s, ClassDMADriverFault, l, 0.55)
		a.addReason("KFD userptr restore failed (Failed to resume KFD)")
		return
	case strings.Contains(t, "uncorrectable hardware error"), strings.Contains(t, "Accelerator Check Architecture"),
		strings.Contains(t, "aca entry"), strings.Contains(t, "RAS event of type"), strings.Contains(t, "ERREVENT_"),
		strings.Contains(t, "amdgpu") && strings.Contains(t, "ECC") && containsAny(t, "uncorrectable", "error", "Error"):
		s.format("dmesg_ras")
		a := s.b.add(s, ClassECCRAS, l, 0.85)
		if b := submatch(reBDF, t); b != "" {
			a.setStr(&a.f.Device, b)
		}
		a.addReason("RAS / ECC error reported by the driver")
		return
	}
}

// pageFault handles the multi-line page-fault decode; returns true when the
// line belonged to it.
func (p *dmesgParser) pageFault(l *line) bool {
	t := l.text
	bdf := ""
	if strings.Contains(t, "amdgpu ") {
		bdf = submatch(reBDF, t)
	}
	if m := findIf(t, "page fault (src_id:", rePFHeader); m != nil {
		if m[1] != "" {
			bdf = m[1]
		}
		p.flush(bdf)
		if len(p.recs) > 64 {
			for _, k := range sortedRecKeys(p.recs) {
				p.flush(k)
			}
		}
		pf := &pageFault{bdf: bdf, hub: m[2], retry: strings.TrimSpace(m[3]), ring: m[5], vmid: m[6], flags: map[string]string{}, first: keepLine(l)}
		if m[8] != "" {
			pf.process, pf.pid = m[8], atoiDef(m[9], 0)
		}
		pf.lines = append(pf.lines, l.ev(p.s))
		p.recs[bdf] = pf
		p.s.format("dmesg_page_fault")
		return true
	}
	pf := p.recs[bdf]
	if pf == nil {
		// decode lines without "amdgpu <BDF>:" (some kernels): attach to the only open record
		if len(p.recs) == 1 {
			for _, r := range p.recs {
				pf = r
			}
		}
		if pf == nil {
			return false
		}
	}
	used := false
	if m := findIf(t, "rocess ", rePFProcess); m != nil && pf.process == "" {
		pf.process, pf.pid, used = m[1], atoiDef(m[2], 0), true
	}
	if m := findIf(t, "in page starting at address ", rePFAddr); m != nil {
		if pf.addr != "" {
			// a new fault in the same burst without a header: close the record
			p.flush(pf.bdf)
			return true
		}
		pf.addr, used = m[1], true
		if m[2] != "" {
			pf.lines = append(pf.lines, l.ev(p.s))
			pf.flags["ih_client"] = strings.TrimSpace(m[2])
		}
	}
	if m := findIf(t, "VM_L2_PROTECTION_FAULT_STATUS:", rePFStatus); m != nil {
		pf.status, used = m[1], true
	}
	if m := findIf(t, "Faulty UTCL2 client ID: ", rePFClient); m != nil {
		pf.client, used = strings.TrimSpace(m[1]), true
	}
	if !containsAny(t, "_FAULTS: ", "_ERROR: ", "RW: ") {
	} else if m := rePFFlag.FindStringSubmatch(t); m != nil {
		pf.flags[m[1]], used = m[2], true
	}
	if used && len(pf.lines) < 12 {
		pf.lines = append(pf.lines, l.ev(p.s))
	}
	return used
}

// flush turns a completed page-fault record into a finding.
func (p *dmesgParser) flush(bdf string) {
	pf := p.recs[bdf]
	if pf == nil {
		return
	}
	delete(p.recs, bdf)
	s := p.s
	zeroStatus := pf.status != "" && isZeroHex(pf.status)
	class := ClassGPUMemoryFault
	cl := strings.ToUpper(pf.client)
	if strings.HasPrefix(cl, "SDMA") || strings.HasPrefix(cl, "CPF") {
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
	if pf.vmid == "0" && pf.pid == 0 {
		if r := s.b.get(ClassGPUHangReset); r != nil && (r.f.Device == "" || pf.bdf == "" || r.f.Device == pf.bdf) {
			for _, e := range pf.lines {
				r.evidence(e)
			}
			r.note("a page fault in vmid 0 (no process) on " + pf.bdf + " during the reset: driver-internal, a consequence of the hang, not an application fault")
			return
		}
	}
	conf := 0.85
	a := s.b.add(s, class, nil, conf)
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
	case strings.HasPrefix(cl, "SDMA"):
		return "SDMA = copy engine (memcpy, IPC): driver / DMA path, not a shader bug"
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

func (p *dmesgParser) xid(l *line) {
	s := p.s
	m := reXid.FindStringSubmatch(l.text)
	if m == nil {
		return
	}
	s.format("nvidia_xid")
	code := atoiDef(m[2], 0)
	// NVIDIA's Xid catalog: 13 graphics engine exception (out-of-range
	// address / illegal instruction in a user kernel) and 31 MMU fault are
	// the application's memory faults; 43 "GPU stopped processing" and 45
	// "preemptive cleanup" follow them; 69 graphics class error; 48/63/64/
	// 92/94/95 ECC and row remapping, 74 NVLink: hardware; 8/109/119/120
	// timeouts and 79 "fallen off the bus": hang / reset.
	class, conf := "", 0.75
	switch code {
	case 13, 31:
		class = ClassGPUMemoryFault
	case 43, 45:
		class, conf = ClassGPUMemoryFault, 0.5
	case 69:
		class = ClassDeviceAssert
	case 48, 63, 64, 74, 92, 94, 95:
		class = ClassECCRAS
	case 8, 79, 109, 119, 120:
		class = ClassGPUHangReset
	}
	if class == "" {
		return
	}
	a := s.b.add(s, class, l, conf)
	a.setStr(&a.f.Device, m[1])
	a.addReason("Xid " + m[2] + ": " + strings.TrimSpace(m[5]))
	if pid := atoiDef(m[3], 0); pid > 0 {
		a.setPID(pid)
	}
	a.setStr(&a.f.Process, m[4])
}

// dmesgKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var dmesgKeywords = []string{"amdgpu", "Faulty UTCL2", "_FAULTS:", "_ERROR:", "RW:", "Out of memory", "oom-kill", "MES", "reset", "ring ", "wedged", "Hardware Error", "ECC", "RAS", "aca entry", "NVRM", "KFD", "Killed process", "uncorrectable"}
