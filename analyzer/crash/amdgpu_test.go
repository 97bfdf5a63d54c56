package crash

import "testing"

// Real amdgpu / amdkfd kernel lines, one a case, each read alone: the
// catalog row they hit gives the class first, and a deliberately-none row
// gives no finding.
func TestAMDGPUCatalog(t *testing.T) {
	cases := []struct{ src, line, want string }{
		// ring / job timeouts, every generation's wording
		{"https://github.com/ValveSoftware/SteamOS/issues/2802", "[Thu Sep 10 14:36:16 2026] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=7292300, emitted seq=7292304", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/6313", "kvě 25 19:29:48 bc250 kernel: amdgpu 0000:01:00.0: ring sdma0 timeout, signaled seq=309, emitted seq=313", ClassGPUHangReset},
		{"https://github.com/QubesOS/qubes-issues/issues/7648", "Jul 23 10:14:37 dom0 kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=1837320, emitted seq=1837320", ClassGPUHangReset},
		{"https://github.com/doitsujin/dxvk/issues/1912", "[ 4144.518133] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, but soft recovered", ClassGPUHangReset},
		// reset begin / failed / MES / CP preemption
		{"https://github.com/ROCm/legacy-rocm-build/issues/5724", "[  950.818199] amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!. Source:  3", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/5724", "[  950.818174] amdgpu 0000:c5:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/3265", "May 26 18:09:55 fedora kernel: [drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 [amdgpu]] *ERROR* MES failed to response msg=3", ClassGPUHangReset},
		{"https://github.com/ValveSoftware/SteamOS/issues/2802", "[Thu Sep 10 14:36:18 2026] amdgpu 0000:03:00.0: amdgpu: reset via MES failed and try pipe reset -110", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/6273", "[127035.492298] amdgpu 0000:c5:00.0: amdgpu: Ring gfx_0.0.0 reset failed", ClassGPUHangReset},
		{"https://github.com/QubesOS/qubes-issues/issues/7648", "Jul 23 10:14:27 dom0 kernel: [drm:amdgpu_job_timedout [amdgpu]] *ERROR* GPU Recovery Failed: -110", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/782", "[ 4210.220078] qcm fence wait loop timeout expired", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/782", "[ 4210.220081] The cp might be in an unrecoverable state due to an unsuccessful queues preemption", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/1584", "Oct 07 15:47:47 sanori-laptop kernel: amdgpu: The cp might be in an unrecoverable state due to an unsuccessful queues preemption", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/1584", "Oct 07 15:47:47 sanori-laptop kernel: amdgpu: Failed to quiesce KFD", ClassGPUHangReset},
		{"https://github.com/ollama/ollama/issues/738", "[75287.322365] amdgpu 0000:03:00.0: amdgpu: HIQ MQD's queue_doorbell_id0 is not 0, Queue preemption time out", ClassGPUHangReset},
		{"https://github.com/xCollateral/VulkanMod/issues/213", "/var/log/syslog:Apr  9 12:59:18 konqi-Legion-5-15ACH6 kernel: [213201.718460] [drm] VRAM is lost due to GPU reset!", ClassGPUHangReset},
		{"https://github.com/pop-os/pop/issues/2132", "Feb  2 08:03:20 kernel: [37937.845178] amdgpu 0000:03:00.0: amdgpu: MODE1 reset", ClassGPUHangReset},
		// a job pushed to a killed scheduler entity (the fix: deepin-community/kernel#1148,
		// upstream "drm/amdgpu: fix task hang from failed job submission during process kill");
		// an RX 7700 XT freeze report (kernel 6.17) and a W7900D cluster's hang runbook quote it
		{"https://gist.github.com/danielrosehill/965423a18f56a6d8ade74d616c2d97e1", "[drm:drm_sched_entity_push_job [gpu_sched]] *ERROR* Trying to push to a killed entity", ClassGPUHangReset},
		{"https://github.com/deepin-community/kernel/pull/1148", "[  367.891831] [drm:amddrm_sched_entity_push_job [amd_sched]] *ERROR* Trying to push to a killed entity", ClassGPUHangReset},
		// the SMU stops answering
		{"https://github.com/NixOS/nixpkgs/issues/176915", "[Wed Jun  8 16:35:03 2022] amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command!", ClassGPUHangReset},
		{"https://github.com/ROCm/legacy-rocm-build/issues/2196", "[31317.644104] amdgpu 0000:0d:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000012 SMN_C2PMSG_82:0x00000005", ClassGPUHangReset},
		{"https://github.com/ishitatsuyuki/acominer/issues/9", "[442366.409593] amdgpu: failed to send message 200 ret is 0", ClassGPUHangReset},
		// KFD userptr restore
		{"https://github.com/ollama/ollama/issues/738", "[75291.328272] amdgpu: amdgpu_amdkfd_restore_userptr_worker: Failed to resume KFD", ClassDMADriverFault},
		// deliberately none: boot-time and informational lines
		{"https://github.com/ROCm/legacy-rocm-build/issues/1584", "Oct 07 15:47:47 sanori-laptop kernel: amdgpu 0000:03:00.0: amdgpu: SECUREDISPLAY: securedisplay ta ucode is not available", ""},
		{"https://github.com/ROCm/TheRock/issues/2655", "[5621799.027382] amdgpu 0000:83:00.0: amdgpu: SMU is resumed successfully!", ""},
		{"https://github.com/ROCm/legacy-rocm-build/issues/4444", "[ 7753.512148] amdgpu 0000:c6:00.0: amdgpu: ring sdma0 uses VM inv eng 12 on hub 0", ""},
		{"https://github.com/ROCm/legacy-rocm-build/issues/5724", "[  953.391196] amdgpu: Freeing queue vital buffer 0x7f2e70800000, queue evicted", ""},
	}
	for _, c := range cases {
		d := diagnoseWhole("dmesg.log", []byte(c.line+"\n"))
		got := ""
		if len(d.Findings) > 0 {
			got = d.Findings[0].Class
		}
		if got != c.want {
			t.Errorf("%s: %q: %v, want %q", c.src, c.line, classesOf(d), c.want)
		}
	}
}

// The catalog's own wordings (drivers/gpu/drm/amd sources), where the
// corpus holds no real line: every row is reachable and none-rows stop the
// rows after them.
func TestAMDGPUCatalogRows(t *testing.T) {
	cases := []struct{ line, kind string }{
		{"amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed", "reset"},
		{"amdgpu 0000:03:00.0: amdgpu: ASIC reset failed with error, -110 for drm dev, 0000:03:00.0", "reset"},
		{"amdgpu 0000:c1:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block", "ras"},
		{"amdgpu 0000:c1:00.0: amdgpu: 2 correctable hardware errors detected in umc block", ""},
		{"amdgpu 0000:c1:00.0: amdgpu: RAS poison consumption, fall back to gpu reset flow", "ras"},
		{"amdgpu 0000:c1:00.0: amdgpu: poison is consumed by client 12, kick off gpu reset flow", "ras"},
		{"amdgpu 0000:03:00.0: amdgpu: psp gfx command LOAD_TA(0x1) failed and response status is (0x7)", ""},
	}
	for _, c := range cases {
		e, ok := extractKernelEvent(c.line)
		if !ok && c.kind != "" || ok && e.kind != c.kind {
			t.Errorf("%q: %+v %v, want kind %q", c.line, e, ok, c.kind)
		}
	}
	if e, _ := extractKernelEvent("amdgpu 0000:03:00.0: amdgpu: GPU reset(3) failed"); !e.strong {
		t.Error("a failed reset is a strong reset line")
	}
}
