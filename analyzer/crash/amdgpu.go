package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// amdgpuMsg is one row of the amdgpu / amdkfd kernel-message catalog: the
// words that mark the message, the kernel event it is (reset | ras |
// kfd_resume) and, for a reset, whether the line alone proves
// the GPU hung. kind "" is deliberately none: the message is read and
// dropped, so no later row takes it (PSP's boot-time TA loads, correctable
// errors).
type amdgpuMsg struct {
	any    []string       // the line holds one of them
	also   string         // and this ("" none)
	re     *lazyre.Regexp // and matches this (nil: no check)
	fold   bool           // any is matched ignoring ASCII case
	kind   string
	strong bool   // a reset row the line proves on its own (besides resetStrong)
	reason string // when resetReason names none
}

var reECCErr = lazyre.New(`uncorrectable|[Ee]rror`)

// amdgpuMsgs is the catalog, first match wins. Wordings from the driver
// (drivers/gpu/drm/amd/amdgpu: amdgpu_device.c's recovery, amdgpu_job.c,
// amdgpu_mes.c, mes_v11/v12, amdgpu_ras.c / amdgpu_aca.c, amdgpu_gem.c,
// pm/ swsmu and powerplay; amdkfd: kfd_device_queue_manager.c,
// kfd_int_process_v9.c) and the real dmesg of the table test
// (TestAMDGPUCatalog). A row's words must pass dmesgKeywords and the
// parser's gate (dmesgGate).
var amdgpuMsgs = []amdgpuMsg{
	// hang / reset / firmware: gpu_hang_reset
	{any: []string{"Ring timed out details"}, kind: "reset"},
	{any: []string{"MES failed to respon"}, kind: "reset"},
	{any: []string{"failed to remove hardware queue from MES"}, kind: "reset"},
	{any: []string{"MES might be in unrecoverable state"}, kind: "reset"},
	{any: []string{"GPU reset begin"}, kind: "reset"},
	{any: []string{"device wedged"}, kind: "reset"},
	{any: []string{"GPU reset("}, also: " failed", kind: "reset", strong: true, reason: "the GPU reset failed: the device is unusable until a reboot"},
	{any: []string{"ASIC reset failed", "GPU Recovery Failed"}, kind: "reset", strong: true, reason: "the GPU reset failed: the device is unusable until a reboot"},
	{any: []string{"Ring "}, also: "reset failed", kind: "reset"},
	{any: []string{"Queue preemption time out"}, kind: "reset"},
	// amdgpu_amdkfd_gfx_v7/v8/v9's hqd_destroy: the CP did not take the
	// queue off the hardware ("kfd2kgd: cp queue preemption time out", 4.x
	// "kfd: cp queue preemption time out (%dms)")
	{any: []string{"cp queue preemption time out"}, kind: "reset", reason: "a compute queue would not preempt (CP hqd destroy timed out)"},
	{any: []string{"cp might be in an unrecoverable state"}, kind: "reset", strong: true, reason: "the CP did not preempt the queues (KFD HWS hang)"},
	{any: []string{"qcm fence wait loop timeout"}, kind: "reset", reason: "KFD queue preemption timed out (qcm fence)"},
	{any: []string{"timeout"}, re: reRingTO, kind: "reset"},
	{any: []string{"GPU reset"}, also: "succeeded", kind: "reset"},
	{any: []string{"amdgpu_job_timedout"}, kind: "reset"},
	{any: []string{"Failed to evict"}, kind: "reset"},
	{any: []string{"Failed to suspend process"}, kind: "reset"},
	{any: []string{"Failed to quiesce KFD"}, kind: "reset"},
	{any: []string{"reset via MES failed", "failed to reset legacy queue"}, kind: "reset"},
	{any: []string{"ring reset"}, kind: "reset"},
	{any: []string{"MODE1 reset"}, kind: "reset"},
	{any: []string{"MODE2 reset"}, kind: "reset"},
	{any: []string{"BACO reset"}, kind: "reset"},
	{any: []string{"devcoredump"}, kind: "reset"},
	{any: []string{"Dumping IP State"}, kind: "reset"},
	// the DRM scheduler refused a job of a process being killed
	// (drm_sched_entity_push_job: "Trying to push to a killed entity"); its
	// fences never signal, so whatever waits on them hangs in D state —
	// upstream "drm/amdgpu: fix task hang from failed job submission during
	// process kill" (v6.17-rc2); alone it is weak
	{any: []string{"Trying to push to a killed entity"}, kind: "reset", reason: "a job was pushed to a killed scheduler entity: its fences never signal (tasks waiting on them hang)"},
	{any: []string{"VRAM is lost due to GPU reset"}, kind: "reset", reason: "VRAM was lost in the GPU reset"},
	// the SMU (power-management firmware) no longer answers the driver:
	// the GPU is hung (or being reset); alone it is weak
	{any: []string{"failed to send message"}, fold: true, re: reSMUFail, kind: "reset", reason: "SMU firmware stopped answering (failed to send message)"},
	{any: []string{"I'm not done with your previous command"}, kind: "reset", reason: "SMU firmware stopped answering (still busy with the previous command)"},
	// PSP's trusted-application loads fail at boot on many consumer cards
	// (HDCP / DTM / securedisplay TAs) with no effect on compute: none
	{any: []string{"psp gfx command"}, kind: ""},
	// KFD userptr restore: dma_driver_fault
	{any: []string{"Failed to resume KFD", "restore_userptr_worker"}, kind: "kfd_resume"},
	// RAS / ECC: ecc_ras
	{any: []string{"uncorrectable hardware error", "Accelerator Check Architecture", "aca entry", "RAS event of type", "ERREVENT_"}, kind: "ras"},
	// a correctable error was fixed in place: none
	{any: []string{"correctable hardware error"}, kind: ""},
	{any: []string{"poison consumption", "poison is consumed"}, kind: "ras", reason: "RAS poison consumed: a kernel read memory an uncorrectable error had marked bad"},
	{any: []string{"ECC"}, also: "amdgpu", re: reECCErr, kind: "ras"},
}

// matchAMDGPUMessage reads an amdgpu / amdkfd message by the catalog; it
// keeps no state and decides no class.
func matchAMDGPUMessage(t string) (kernelEvent, bool) {
	for i := range amdgpuMsgs {
		r := &amdgpuMsgs[i]
		hit := false
		for _, w := range r.any {
			if r.fold && containsFoldASCII(t, w) || !r.fold && strings.Contains(t, w) {
				hit = true
				break
			}
		}
		if !hit || r.also != "" && !strings.Contains(t, r.also) || r.re != nil && !r.re.MatchString(t) {
			continue
		}
		if r.kind == "" {
			return kernelEvent{}, false
		}
		e := kernelEvent{kind: r.kind, bdf: submatch(reBDF, t)}
		if r.kind != "reset" {
			e.reason = r.reason
		} else {
			e.susPID = submatch(reSuspendPID, t)
			e.timeout = strings.Contains(t, "timeout") || strings.Contains(t, "timedout")
			e.strong = r.strong || r.reason == "" && resetStrong(t)
			if e.reason = resetReason(t); e.reason == "" {
				e.reason = r.reason
			}
		}
		return e, true
	}
	return kernelEvent{}, false
}

// resetStrong: a reset line that proves the reset on its own (begin, MES
// failure, timeout, MODEn, BACO).
func resetStrong(t string) bool {
	return containsAny(t, "GPU reset begin", "MES failed", "device wedged", "timeout", "MODE1", "MODE2", "BACO", "unrecoverable", "Ring timed out details")
}

func resetReason(t string) string {
	switch m := reMESFail.FindStringSubmatch(t); {
	case strings.Contains(t, "Ring timed out details"):
		// the device coredump's own text (amdgpu_dev_coredump.c: the
		// "**** AMDGPU Device Coredump ****" file, "Ring timed out
		// details" then "IP Type: 0 Ring Name: gfx_0.0.0")
		return "ring timeout (AMDGPU device coredump)"
	case m != nil:
		return "MES failed to respond to msg=" + m[1]
	case strings.Contains(t, "timeout") && reRingTO.MatchString(t):
		return "ring " + submatch(reRingTO, t) + " timeout"
	case strings.Contains(t, "GPU reset begin"):
		return "GPU reset"
	}
	return ""
}
