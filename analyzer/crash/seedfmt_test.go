package crash

import (
	"strings"
	"testing"
)

// Issue 9's "smaller ones", each written as its producer prints it
// (testdata/seedfmt, provenance on each file's first line).
func TestSeedFormats(t *testing.T) {
	cases := []struct {
		file  string
		class string
		check func(f *Finding) string
	}{
		{"seed002_driver_limits.log", ClassGPUMemoryFault, func(f *Finding) string {
			if f.Kernel != "rms_norm_kernel" {
				return "the kernel named by \"failed after kernel 'X'\" is lost"
			}
			return ""
		}},
		{"seed002_driver_limits.log", ClassInvalidLaunch, func(f *Finding) string {
			for _, n := range f.Notes {
				if strings.Contains(n, "within the device limits") {
					return "maxThreadsDim=[1024, 0, 0] called within limits"
				}
			}
			if !strings.Contains(f.Details["driver_limits_bug"], "maxThreadsDim=[1024, 0, 0]") {
				return "driver bug not named"
			}
			return ""
		}},
		{"seed002_kernel_not_found.log", ClassKernelNotFound, func(f *Finding) string {
			if f.HIPError != "hipErrorNotFound" {
				return "hipErrorNotFound lost"
			}
			return ""
		}},
		{"hip_oom_private_pools.log", ClassVRAMOOM, func(f *Finding) string {
			if f.SubKind != "fragmentation" || !strings.Contains(strings.Join(f.NextSteps, " "), "expandable_segments:True") || f.Details["private_pools"] != "12.50 GiB" {
				return "private-pools OOM lost the fragmentation verdict / advice"
			}
			return ""
		}},
		{"agent_invalid_opcode.log", ClassIllegalInstruction, func(f *Finding) string {
			if f.Details["code_object_corrupt"] == "" {
				return ".long 0xdeadbeef at the pc not read as a corrupt code object"
			}
			if f.SavedCodeObject != "7_memory___2188702_offset_0x546c3060_size_4026672" {
				return "saved code object " + f.SavedCodeObject
			}
			if !strings.Contains(strings.Join(f.NextSteps, "\n"), "Triton kernels especially") {
				return "the PC-can-lie step is missing"
			}
			return ""
		}},
		{"triton_module_not_found.log", ClassTritonCompile, func(f *Finding) string {
			if !strings.Contains(strings.Join(f.NextSteps, " "), ".triton/cache") {
				return "no cache advice"
			}
			return ""
		}},
		{"nvidia_xid13.log", ClassGPUMemoryFault, func(f *Finding) string {
			if f.PID == nil || *f.PID != 48211 {
				return "pid lost"
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.class, func(t *testing.T) {
			d := goldenCase(t, "seedfmt/"+strings.TrimSuffix(c.file, ".log")+".golden.json", "testdata/seedfmt/"+c.file)
			f := hasClass(d, c.class)
			if f == nil {
				t.Fatalf("no %s: %s", c.class, d.JSON())
			}
			if msg := c.check(f); msg != "" {
				t.Errorf("%s\n%s", msg, d.JSON())
			}
			if hasClass(d, ClassNotGPU) != nil {
				t.Errorf("not_gpu next to a GPU finding")
			}
		})
	}
}
