package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// A GPU lost from the PCIe bus as the user-space tools report it, without
// the kernel's NVRM line: nvidia-smi's "Unable to determine the device
// handle for GPU<BDF>: GPU is lost. Reboot the system to recover this GPU"
// or "…: Unknown Error", NVML's GPU_IS_LOST in its Python and Go bindings
// and in slurmstepd, and a health agent's "XID 79(GPU has fallen off the
// bus) detected on PCI:<BDF>".

var (
	reNVMLHandle = lazyre.New(`Unable to (?:determine|detect) the device handle for GPU\s*([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]):\s*(.+?)\.?\s*(?:Reboot.*)?$`)
	reAgentXid   = lazyre.New(`(?i)\bXID (\d+)\s*\(([^)]*)\) detected on (?:PCI:)?([0-9A-Fa-f:.]+)`)
)

// deviceLost is one such line as a typed fact.
type deviceLost struct {
	bdf    string
	reason string
	sure   bool // "GPU is lost" / Xid 79 / NV_ERR_GPU_IS_LOST; nvidia-smi's "Unknown Error" alone is not (a container's device cgroup says it too)
}

func extractDeviceLost(t string) (deviceLost, bool) {
	if m := findIf(t, "device handle", reNVMLHandle); m != nil {
		r := strings.TrimSpace(m[2])
		return deviceLost{bdf: m[1], reason: "nvidia-smi: " + r, sure: strings.Contains(r, "GPU is lost")}, true
	}
	if m := findFoldIf(t, "xid", reAgentXid); m != nil && m[1] == "79" {
		return deviceLost{bdf: m[3], reason: "Xid 79: " + strings.TrimSpace(m[2]), sure: true}, true
	}
	if (containsAny(t, "GPU_IS_LOST", "GpuIsLost") || strings.Contains(t, "NVML") && strings.Contains(t, "GPU is lost")) && !commandLike(t) {
		return deviceLost{reason: "NVML: GPU is lost", sure: true}, true
	}
	return deviceLost{}, false
}

// deviceLostRule: a GPU that no longer answers on PCIe (power, thermals,
// link, driver) is a device loss, reported like Xid 79 (dmesg.go's
// "fallen off the bus").
func (p *nvidiaParser) deviceLostRule(l *line, x deviceLost) {
	s := p.s
	s.format("nvidia_device_lost")
	conf := 0.6
	if x.sure {
		conf = 0.85
	}
	a := s.b.add(s, ClassGPUHangReset, l, conf)
	a.strong = x.sure
	a.setStr(&a.f.Device, x.bdf)
	a.addReason("GPU lost from the bus (" + x.reason + ")")
}

// deviceLostKeywords feed the line prefilter (prefilter.go) of nvidiaParser.
var deviceLostKeywords = []string{"device handle", "XID ", "Xid ", "GPU_IS_LOST", "GpuIsLost", "GPU is lost"}
