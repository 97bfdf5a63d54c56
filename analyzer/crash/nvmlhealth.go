package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// A GPU system degraded below the job, as NVIDIA's management stack reports
// it (nvml.go reads the GPU lost from the bus):
//   - NVML that cannot start: "Failed to initialize NVML: Driver/library
//     version mismatch" (the kernel module and the user-space driver of
//     different versions: an upgrade without a reboot), "…: Unknown Error"
//     (a container that lost its device cgroup), "…: Insufficient
//     Permissions" — the platform, not a GPU fault;
//   - the NVSwitch driver's SXid record, "nvidia-nvswitchN: SXid
//     (PCI:<BDF>): <code>, Fatal|Non-fatal, <text>" (the fabric manager
//     logs the same line): a fatal one is the NVLink fabric's hardware
//     failing under the job, like Xid 74; a non-fatal one says nothing of
//     its own.

var reSXid = lazyre.New(`nvswitch(\d+): SXid \(PCI:([0-9A-Fa-f:.]+)\): (\d+), (Fatal|Non-fatal)(?:, (.*))?`)

// nvmlInitFailure is NVML's start-up failure with its reason.
type nvmlInitFailure struct{ reason string }

func extractNVMLInitFailure(t string) (nvmlInitFailure, bool) {
	const p = "Failed to initialize NVML: "
	i := strings.Index(t, p)
	if i < 0 {
		return nvmlInitFailure{}, false
	}
	r := strings.TrimSpace(t[i+len(p):])
	if r == "" {
		return nvmlInitFailure{}, false
	}
	return nvmlInitFailure{reason: clip(r, 120)}, true
}

// sxid is one NVSwitch SXid record.
type sxid struct {
	switchN, bdf, code, text string
	fatal                    bool
}

func extractSXid(t string) (sxid, bool) {
	m := findIf(t, "SXid (PCI:", reSXid)
	if m == nil {
		return sxid{}, false
	}
	return sxid{switchN: m[1], bdf: m[2], code: m[3], fatal: m[4] == "Fatal", text: strings.TrimSpace(m[5])}, true
}

// nvmlInitRule: NVML that cannot start is a setup problem of the node.
func (p *nvidiaParser) nvmlInitRule(l *line, x nvmlInitFailure) {
	s := p.s
	conf := 0.5
	why := "NVML could not start (" + x.reason + "): the node's driver setup, not a GPU fault"
	if strings.Contains(x.reason, "version mismatch") {
		conf = 0.6
		why = "NVML: driver / library version mismatch — the loaded kernel module and the user-space driver differ (a driver upgrade without a reboot)"
	}
	s.format("nvml_init_failure")
	a := s.b.add(s, ClassNotGPU, l, conf)
	a.detail("nvml_error", x.reason)
	a.addReason(why)
}

// sxidRule: a fatal NVSwitch error is the NVLink fabric failing (a hardware
// ticket; the GPUs on the switch need a reset); non-fatal ones decide nothing.
func (p *nvidiaParser) sxidRule(l *line, x sxid) {
	if !x.fatal {
		return
	}
	s := p.s
	s.format("nvswitch_sxid")
	a := s.b.add(s, ClassECCRAS, l, 0.7)
	a.detail("sxid", x.code)
	a.detail("nvswitch", "nvswitch"+x.switchN)
	a.detail("nvswitch_pci", x.bdf)
	r := "NVSwitch fatal SXid " + x.code
	if x.text != "" {
		r += " (" + clip(x.text, 80) + ")"
	}
	a.addReason(r + ": the NVLink fabric failed under the job")
}

// nvmlHealthKeywords feed the line prefilter (prefilter.go) of nvidiaParser.
var nvmlHealthKeywords = []string{"initialize NVML", "SXid ("}
