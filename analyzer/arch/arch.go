// Package arch decides which GPU architecture a trace ran on and how far its
// results carry over to the architecture the user targets (arch_match).
package arch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"encoding/json"
)

// Device is one entry of a trace's deviceProperties.
type Device struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	TotalMem     int64  `json:"totalGlobalMem"`
	Major        int    `json:"computeMajor"`
	Minor        int    `json:"computeMinor"`
	NumSMs       int    `json:"numSms"`
	WarpSize     int    `json:"warpSize"`
	MaxShmPerSM  int64  `json:"maxSharedMemoryPerMultiProcessor"`
	RegsPerBlock int64  `json:"regsPerBlock"`
	// GCNArch is the agent's gfx target where the profiler names it (the
	// ROCm profilers' agent tables; analyzer/rocprof writes it here).
	GCNArch string `json:"gcnArchName,omitempty"`
}

// ParseDevices decodes a deviceProperties value; nil on anything unusable.
func ParseDevices(raw []byte) []Device {
	if len(raw) == 0 {
		return nil
	}
	var ds []Device
	if err := json.Unmarshal(raw, &ds); err != nil {
		return nil
	}
	return ds
}

// Evidence is what a trace says about its hardware.
type Evidence struct {
	Devices []Device // deviceProperties (all visible devices)
	ISA     []string // ISA tokens found in kernel names, e.g. gfx942, sm90
	Vendor  string   // "amd", "nvidia" or "" from runtime API names
}

// Relevance is the arch verdict written into profile_metadata.json.
type Relevance struct {
	ObservedArch string `json:"observed_arch"`
	ArchMatch    string `json:"arch_match"`
	Reason       string `json:"hardware_relevance_reason"`
	Vendor       string `json:"vendor"`
	DeviceName   string `json:"device_name"`
	Basis        string `json:"arch_basis"` // name | isa | fingerprint | none
}

// VendorOf returns "amd" for gfx targets and "nvidia" for sm targets.
func VendorOf(target string) string {
	switch {
	case strings.HasPrefix(target, "gfx"):
		return "amd"
	case strings.HasPrefix(target, "sm"):
		return "nvidia"
	}
	return ""
}

// ValidTarget reports whether t names a gfx or sm architecture.
func ValidTarget(t string) bool {
	if strings.HasPrefix(t, "gfx") && len(t) > 3 {
		return true
	}
	if strings.HasPrefix(t, "sm") {
		s := strings.TrimPrefix(strings.TrimPrefix(t, "sm"), "_")
		s = strings.TrimSuffix(s, "a")
		_, err := strconv.Atoi(s)
		return err == nil
	}
	return false
}

// NormalizeTarget turns "sm_90" into "sm90" and lower-cases.
func NormalizeTarget(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if strings.HasPrefix(t, "sm_") {
		t = "sm" + t[3:]
	}
	return t
}

// products maps the product names a user types for --target-arch to
// their ISA (AMD: the Instinct data sheets' "gfx" targets of ROCm's GPU
// support matrix; NVIDIA: the compute capability of CUDA's GPU list).
var products = []struct{ name, isa string }{
	{"MI355X", "gfx950"}, {"MI350X", "gfx950"},
	{"MI325X", "gfx942"}, {"MI300X", "gfx942"}, {"MI300A", "gfx942"}, {"MI308X", "gfx942"},
	{"MI250X", "gfx90a"}, {"MI250", "gfx90a"}, {"MI210", "gfx90a"}, {"MI100", "gfx908"},
	{"B300", "sm103"}, {"GB300", "sm103"}, {"B200", "sm100"}, {"GB200", "sm100"},
	{"H200", "sm90"}, {"H100", "sm90"}, {"H800", "sm90"}, {"H20", "sm90"}, {"GH200", "sm90"},
	{"L40S", "sm89"}, {"L40", "sm89"}, {"L4", "sm89"}, {"A100", "sm80"}, {"A800", "sm80"}, {"A10", "sm86"},
}

// Product reads a product name ("MI355X", "AMD Instinct MI300X", "h100"):
// its ISA and the name as listed; "" when t names no product.
func Product(t string) (isa, name string) {
	u := strings.ToUpper(strings.TrimSpace(t))
	u = strings.TrimPrefix(u, "AMD ")
	u = strings.TrimPrefix(u, "INSTINCT ")
	u = strings.TrimPrefix(u, "NVIDIA ")
	u = strings.ReplaceAll(u, " ", "")
	for _, p := range products {
		if u == p.name {
			return p.isa, p.name
		}
	}
	return "", ""
}

// amdNames maps product-name fragments to their ISA (longest first).
var amdNames = []struct{ frag, isa string }{
	{"MI355X", "gfx950"}, {"MI350X", "gfx950"},
	{"MI325X", "gfx942"}, {"MI300X", "gfx942"}, {"MI300A", "gfx942"}, {"MI308X", "gfx942"},
	{"MI250X", "gfx90a"}, {"MI250", "gfx90a"}, {"MI210", "gfx90a"},
	{"MI100", "gfx908"}, {"MI60", "gfx906"}, {"MI50", "gfx906"},
}

// Decide computes observed_arch and arch_match against target.
func Decide(ev Evidence, target string) Relevance {
	r := Relevance{ObservedArch: "unknown", ArchMatch: "unknown", Basis: "none", Vendor: ev.Vendor}
	var dev *Device
	if len(ev.Devices) > 0 {
		dev = &ev.Devices[0]
		r.DeviceName = dev.Name
	}
	// Vendor: runtime API names first, then warp size, then the name.
	if r.Vendor == "" && dev != nil {
		switch {
		case strings.Contains(dev.Name, "NVIDIA") || strings.HasPrefix(dev.Name, "Tesla"):
			r.Vendor = "nvidia"
		case strings.Contains(dev.Name, "AMD") || dev.WarpSize == 64 || strings.HasPrefix(dev.GCNArch, "gfx"):
			r.Vendor = "amd"
		case dev.WarpSize == 32:
			r.Vendor = "nvidia"
		}
	}
	var amdISA, nvISA []string
	for _, t := range ev.ISA {
		if strings.HasPrefix(t, "gfx") {
			amdISA = append(amdISA, t)
		} else {
			nvISA = append(nvISA, t)
		}
	}
	if r.Vendor == "" && len(amdISA) > 0 {
		r.Vendor = "amd"
	}
	if r.Vendor == "" && len(nvISA) > 0 {
		r.Vendor = "nvidia"
	}

	var evidence []string
	switch r.Vendor {
	case "amd":
		for _, n := range amdNames {
			if dev != nil && strings.Contains(dev.Name, n.frag) {
				r.ObservedArch, r.Basis = n.isa, "name"
				evidence = append(evidence, fmt.Sprintf("device name %q", dev.Name))
				break
			}
		}
		if g := dev.gfx(); r.Basis == "none" && g != "" {
			r.ObservedArch, r.Basis = g, "name"
			evidence = append(evidence, fmt.Sprintf("agent arch %s (%q)", g, dev.Name))
		}
		if len(amdISA) > 0 {
			if r.Basis == "none" || r.Basis == "fingerprint" {
				r.ObservedArch, r.Basis = amdISA[0], "isa"
			}
			evidence = append(evidence, fmt.Sprintf("ISA token _ISA%s_ in kernel names", strings.TrimPrefix(amdISA[0], "gfx")))
			if len(amdISA) > 1 {
				evidence = append(evidence, "also "+strings.Join(amdISA[1:], ", ")+" code objects")
			}
		}
		if r.Basis == "none" && dev != nil {
			if isa := amdFingerprint(dev); isa != "" {
				r.ObservedArch, r.Basis = isa, "fingerprint"
			}
		}
		if dev != nil && r.Basis != "name" {
			evidence = append(evidence, describe(dev))
		}
	case "nvidia":
		if dev != nil && dev.Major > 0 {
			r.ObservedArch, r.Basis = fmt.Sprintf("sm%d%d", dev.Major, dev.Minor), "name"
			evidence = append(evidence, describe(dev))
		} else if len(nvISA) > 0 {
			evidence = append(evidence, "kernel names target ≥ "+nvISA[len(nvISA)-1]+" (a lower bound only)")
		}
	}
	if len(ev.Devices) == 0 {
		evidence = append(evidence, "no deviceProperties in the trace")
	}

	tv := VendorOf(target)
	switch {
	case r.ObservedArch == "unknown":
		r.ArchMatch = "unknown"
		r.Reason = fmt.Sprintf("The trace does not identify its GPU architecture (%s); results cannot be tied to %s.", strings.Join(evidence, "; "), target)
	case r.Vendor != tv:
		r.ArchMatch = "unknown"
		r.Reason = fmt.Sprintf("Trace ran on %s (%s), another vendor than the %s target: kernel names, timings and categories do not transfer; use only as a workload-shape reference.", r.ObservedArch, strings.Join(evidence, "; "), target)
	case r.ObservedArch == target && (r.Basis == "name" || r.Basis == "isa"):
		r.ArchMatch = "exact"
		r.Reason = fmt.Sprintf("Trace ran on %s, the target architecture (%s).", target, strings.Join(evidence, "; "))
	case r.ObservedArch == target:
		r.ArchMatch = "compatible"
		r.Reason = fmt.Sprintf("Trace matches %s only by fingerprint (%s); treat results as relevant but confirm the device.", target, strings.Join(evidence, "; "))
	default:
		r.ArchMatch = "compatible"
		r.Reason = fmt.Sprintf("Trace ran on %s (%s), same vendor as the %s target: kernel mix, categories and call sites transfer; absolute timings, tile configs and ISA-specific kernels do not.", r.ObservedArch, strings.Join(evidence, "; "), target)
	}
	return r
}

// gfx is the device's gfx target when its profiler named one (base
// target only: "gfx90a:sramecc+:xnack-" is gfx90a).
func (d *Device) gfx() string {
	if d == nil || !strings.HasPrefix(d.GCNArch, "gfx") {
		return ""
	}
	g, _, _ := strings.Cut(d.GCNArch, ":")
	return g
}

func describe(d *Device) string {
	name := d.Name
	if name == "" {
		name = "empty device name"
	} else {
		name = fmt.Sprintf("%q", name)
	}
	unit := "CUs"
	if d.WarpSize == 32 {
		unit = "SMs"
	}
	return fmt.Sprintf("%s, cc %d.%d, %d %s, %.0f GiB", name, d.Major, d.Minor, d.NumSMs, unit, float64(d.TotalMem)/(1<<30))
}

// amdFingerprint identifies an AMD device from compute capability and CU
// count when its name does not (empty, "VF", "AMD Radeon Graphics").
func amdFingerprint(d *Device) string {
	switch {
	case d.Major == 9 && d.Minor == 5:
		return "gfx950"
	case d.Major == 9 && d.Minor == 4:
		return "gfx942"
	case d.Major == 9 && d.Minor == 0 && d.NumSMs >= 100 && d.NumSMs <= 110:
		return "gfx90a"
	case d.Major == 9 && d.Minor == 0 && d.NumSMs == 120:
		return "gfx908"
	case d.Major == 9 && d.Minor == 0 && d.NumSMs >= 56 && d.NumSMs <= 64:
		return "gfx906"
	}
	return ""
}

// SortISA orders ISA tokens by how often they were seen, then name.
func SortISA(counts map[string]int) []string {
	out := make([]string, 0, len(counts))
	for k := range counts {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if counts[out[i]] != counts[out[j]] {
			return counts[out[i]] > counts[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
