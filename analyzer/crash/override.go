package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// HSA_OVERRIDE_GFX_VERSION as facts (extractor → facts → rule). The override
// makes ROCr report another gfx target, so the GPU runs code objects built
// for that target. When the real device is a different ISA the kernels may
// fault, hang the GPU, or — the case no other line reveals — finish and
// return wrong numbers (gibberish text, NaN losses): ROCm/rocBLAS#1346
// ("silently returns incorrect results"), ROCm/legacy-rocm-build#5238 (an
// MI210 overridden to gfx1030), ROCm/rocm-systems#3531 (gfx1151 overridden
// to 12.0.1: ih_fifo overflow, resets). The rule needs both the override
// and the device's own arch; it is defeated when they name the same target
// (a no-op override) or when the log names no device arch.

var (
	reOverride     = lazyre.New(`HSA_OVERRIDE_GFX_VERSION(?:_\d+)?["']?\s*[=:]\s*\\?["']?(\d+)\.(\d+)\.(\d+)`)
	reDevArchField = lazyre.New(`(?:(?:gpu_type|compute|gcnArchName|AMDGPU version|Name)\s*[=:]\s*['"]?|detected amdgpu versions \[)(gfx[0-9a-f]{3,4})\b`)
	reMarketing    = lazyre.New(`(?:Marketing Name|Board name|Card series|Product Name)\s*[:=]\s*['"]?(.*)$`)
)

// gfxOverride: the value as written and the gfx target it selects.
type gfxOverride struct {
	value  string // "10.3.0"
	target string // "gfx1030"
}

// extractOverride reads "HSA_OVERRIDE_GFX_VERSION=10.3.0" in env dumps,
// docker flags, ollama's key=value logs ("…compatibility check"
// HSA_OVERRIDE_GFX_VERSION=10.3.0) and YAML ("HSA_OVERRIDE_GFX_VERSION: 10.3.0").
func extractOverride(t string) (gfxOverride, bool) {
	m := findIf(t, "HSA_OVERRIDE_GFX_VERSION", reOverride)
	if m == nil {
		return gfxOverride{}, false
	}
	return gfxOverride{value: m[1] + "." + m[2] + "." + m[3], target: overrideTarget(m[1], m[2], m[3])}, true
}

// overrideTarget: major.minor.stepping → gfx<major><minor><stepping in hex>
// (libhsakmt topology.c): 10.3.0 → gfx1030, 9.0.10 → gfx90a, 9.4.2 → gfx942.
func overrideTarget(major, minor, step string) string {
	st, err := strconv.Atoi(step)
	if err != nil || st > 15 {
		return ""
	}
	return "gfx" + major + minor + strconv.FormatInt(int64(st), 16)
}

// deviceArch: the device's gfx target as some tool printed it.
type deviceArch struct {
	gfx    string
	source string // "field" (rocminfo Name, ollama gpu_type, torch gcnArchName) | "marketing name"
}

// extractDeviceArch reads a device's own arch: a key naming one gfx target
// (rocminfo/clinfo "Name: gfx1032", ollama gpu_type=gfx1032 / compute=gfx1032,
// torch gcnArchName, TensorFlow "AMDGPU version : gfx1031") or a marketing
// name whose arch is fixed. A line naming several gfx targets is a list of
// supported targets, not a device, and gives nothing.
func extractDeviceArch(t string) (deviceArch, bool) {
	if strings.Contains(t, "gfx") {
		if len(reGfx.FindAllStringSubmatch(t, 3)) != 1 {
			return deviceArch{}, false
		}
		if m := reDevArchField.FindStringSubmatch(t); m != nil {
			return deviceArch{gfx: m[1], source: "field"}, true
		}
		return deviceArch{}, false
	}
	if m := reMarketing.FindStringSubmatch(t); m != nil {
		if g := marketingArch(m[1]); g != "" {
			return deviceArch{gfx: g, source: "marketing name"}, true
		}
	}
	return deviceArch{}, false
}

// marketingArch maps product names whose gfx target is fixed.
func marketingArch(name string) string {
	n := strings.ToUpper(name)
	for _, p := range [...]struct{ key, gfx string }{
		{"MI355", "gfx950"}, {"MI350", "gfx950"}, {"MI325", "gfx942"}, {"MI300", "gfx942"},
		{"MI250", "gfx90a"}, {"MI210", "gfx90a"}, {"MI100", "gfx908"}, {"MI60", "gfx906"}, {"MI50", "gfx906"},
		{"RX 6600", "gfx1032"}, {"W6600", "gfx1032"}, {"RX 6650", "gfx1032"}, {"RX 6700", "gfx1031"},
		{"RX 6800", "gfx1030"}, {"RX 6900", "gfx1030"}, {"RX 6950", "gfx1030"}, {"W6800", "gfx1030"},
		{"RX 7900", "gfx1100"}, {"W7900", "gfx1100"}, {"W7800", "gfx1100"}, {"RX 7800", "gfx1101"}, {"RX 7700", "gfx1101"},
		{"RX 7600", "gfx1102"}, {"780M", "gfx1103"}, {"760M", "gfx1103"}, {"8060S", "gfx1151"},
		{"R9700", "gfx1201"}, {"RX 9070", "gfx1201"}, {"RX 9060", "gfx1200"},
	} {
		if strings.Contains(n, p.key) {
			return p.gfx
		}
	}
	return ""
}

// overrideFacts: the override and the device archs the log names.
type overrideFacts struct {
	ov      gfxOverride
	ovEv    *Evidence
	archs   []deviceArch
	archEvs []Evidence
	done    bool
}

func (s *Session) noteOverride(l *line, o gfxOverride) {
	f := &s.b.facts.gfx
	if f.ovEv != nil {
		return
	}
	s.b.facts.override = o.value
	ev := l.ev(s)
	f.ov, f.ovEv = o, &ev
}

func (s *Session) noteDeviceArch(l *line, d deviceArch) {
	f := &s.b.facts.gfx
	for _, x := range f.archs {
		if x.gfx == d.gfx {
			return
		}
	}
	if len(f.archs) >= 8 {
		return
	}
	f.archs = append(f.archs, d)
	f.archEvs = append(f.archEvs, l.ev(s))
}

// applyOverrideMismatch is the rule, run at the end of each file (the
// override and the device may be in different files): an override whose
// target is not the device's arch → arch_mismatch (sub_kind hsa_override),
// even with no crash in the log, because its usual symptom is wrong output.
// When another GPU of the log is the target itself the override is meant
// for that one and the finding is weaker.
func (s *Session) applyOverrideMismatch() {
	f := &s.b.facts.gfx
	if f.done || f.ovEv == nil || f.ov.target == "" {
		return
	}
	conf, native := 0.75, false
	for _, d := range f.archs {
		if d.gfx == f.ov.target {
			conf, native = 0.55, true
		}
	}
	for i, d := range f.archs {
		if d.gfx == f.ov.target {
			continue
		}
		f.done = true
		a := s.b.add(s, ClassArchMismatch, nil, conf)
		a.evidence(*f.ovEv)
		a.evidence(f.archEvs[i])
		a.setStr(&a.f.SubKind, "hsa_override")
		a.addReason("HSA_OVERRIDE_GFX_VERSION=" + f.ov.value + " runs code objects built for " + f.ov.target + " on a " + d.gfx + " device")
		a.detail("override_target", f.ov.target)
		a.detail("device_arch", d.gfx)
		a.detail("device_arch_source", d.source)
		a.note("the GPU executes " + f.ov.target + " machine code it was not built for: kernels can finish without any error and return wrong values (garbage text, NaN/Inf), or fault / hang the GPU")
		if native {
			a.note("another GPU in the log is " + f.ov.target + " itself: the override applies to every GPU of the process; hide the " + d.gfx + " device (HIP_VISIBLE_DEVICES) or override per device (HSA_OVERRIDE_GFX_VERSION_<node>)")
		}
		return
	}
}
