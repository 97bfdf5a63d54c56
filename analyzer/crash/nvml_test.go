package crash

import "testing"

// Real wordings of a GPU lost from the bus as nvidia-smi, NVML and health
// agents print them (URL per row).
func TestExtractDeviceLost(t *testing.T) {
	cases := []struct {
		src, text string
		want      deviceLost
		ok        bool
	}{
		{"https://github.com/JosephKJ/OWOD/issues/81", "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU",
			deviceLost{bdf: "0000:02:00.0", reason: "nvidia-smi: GPU is lost", sure: true}, true},
		{"https://github.com/rwth-i6/returnn/issues/1486", "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
			deviceLost{bdf: "0000:03:00.0", reason: "nvidia-smi: Unknown Error"}, true},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/387", "nvidia-smi outputs the folllowing error: Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error.",
			deviceLost{bdf: "0000:0B:00.0", reason: "nvidia-smi: Unknown Error"}, true},
		{"https://github.com/NVIDIA/nvidia-docker/issues/1553", "Unable to determine the device handle for GPU 0000:09:00.0: Unknown Error",
			deviceLost{bdf: "0000:09:00.0", reason: "nvidia-smi: Unknown Error"}, true},
		{"https://github.com/jamesstringer90/Easy-GPU-PV/issues/276", "Unable to detect the device handle for GPU0000:B1:00.0: Unknown Error",
			deviceLost{bdf: "0000:B1:00.0", reason: "nvidia-smi: Unknown Error"}, true},
		{"https://github.com/leptonai/gpud/issues/604", "XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00",
			deviceLost{bdf: "0000:ae:00", reason: "Xid 79: GPU has fallen off the bus", sure: true}, true},
		{"https://github.com/leptonai/gpud/issues/604", "failed to get remapped rows for GPU-ac896b35-5782-c478-4b2a-a661de07770f: failed to get device remapped rows: ERROR_GPU_IS_LOST",
			deviceLost{reason: "NVML: GPU is lost", sure: true}, true},
		{"https://github.com/rossumai/nvgpu/issues/6", "NVMLError_GpuIsLost: GPU is lost",
			deviceLost{reason: "NVML: GPU is lost", sure: true}, true},
		{"https://github.com/LSSI-ETH/plmfit/issues/40", "slurmstepd: error: NVML: Failed to get usage(15): GPU is lost",
			deviceLost{reason: "NVML: GPU is lost", sure: true}, true},
		{"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/688", "NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106",
			deviceLost{reason: "NVML: GPU is lost", sure: true}, true},
		// another Xid in an agent's wording is not a device loss; prose is no report
		{"agent, other Xid", "XID 13(Graphics Engine Exception) detected on PCI:0000:ae:00", deviceLost{}, false},
		{"https://github.com/QwenLM/Qwen/issues/629", "Ctrl+c退出显卡会出现error，显示GPU is lost", deviceLost{}, false},
		{"a question", "why does nvidia-smi say GPU_IS_LOST?", deviceLost{}, false},
	}
	for _, c := range cases {
		got, ok := extractDeviceLost(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractDeviceLost(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// The rule: a lost GPU is gpu_hang_reset; nvidia-smi's "Unknown Error"
// alone is weaker than "GPU is lost".
func TestDeviceLostRule(t *testing.T) {
	d := diagnoseWhole("smi.log", []byte("XID 79(GPU has fallen off the bus) detected on PCI:0000:ae:00\n"))
	f := hasClass(d, ClassGPUHangReset)
	if f == nil || f.Confidence < 0.8 {
		t.Fatalf("want a high-confidence gpu_hang_reset: %s", d.JSON())
	}
	d = diagnoseWhole("smi.log", []byte("Unable to determine the device handle for GPU0000:03:00.0: Unknown Error\n"))
	f = hasClass(d, ClassGPUHangReset)
	if f == nil || f.Confidence >= 0.8 {
		t.Fatalf("want a medium-confidence gpu_hang_reset: %s", d.JSON())
	}
}
