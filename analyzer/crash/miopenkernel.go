package crash

import "strings"

// MIOpen's Info2 log names each kernel it is about to build an invoker for
// ("MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel:
// MIOpenBatchNormFwdTrainSpatial", "… Preparing kernel: KthvalueFwd"). A
// GPU memory fault that names no kernel of its own (ROCr's "Memory access
// fault by GPU node-N … Reason: …" never does) most likely came from the
// last one prepared: the suspect, less sure than any line that names the
// faulting kernel (ROCm/MIOpen#579 is such a pair).
const miopenPrepare = "[PrepareInvoker] Preparing kernel: "

// miopenRun: the Info2 line MIOpen writes as it runs a kernel, "MIOpen(HIP):
// Info2 [run] kernel_name = Im2d2Col_v2, global_work_dim = { 43008, 1, 1 },
// local_work_dim = { 256, 1, 1 }" — the kernel its next "Failed to launch
// kernel" is about.
const miopenRun = "[run] kernel_name = "

func extractMIOpenPrepared(t string) string {
	for _, p := range []string{miopenPrepare, miopenRun} {
		i := strings.Index(t, p)
		if i < 0 {
			continue
		}
		k := strings.TrimSpace(t[i+len(p):])
		if j := strings.IndexAny(k, " \t\"'`,"); j >= 0 {
			k = k[:j]
		}
		return k
	}
	return ""
}

// miopenKernelFact is the last kernel MIOpen prepared.
type miopenKernelFact struct {
	name string
	ev   Evidence
}

func (s *Session) noteMIOpenKernel(l *line, name string) {
	s.b.facts.miopenKernel = miopenKernelFact{name: name, ev: l.ev(s)}
}

// applyMIOpenKernel names the last prepared kernel on a memory fault that
// names none, and the kernel MIOpen was running on its own launch failure.
func (b *builder) applyMIOpenKernel(work map[string]*agg) {
	k := b.facts.miopenKernel
	if il := work[ClassInvalidLaunch]; k.name != "" && il != nil && il.f.Kernel == "" && il.details["source"] == "MIOpen" {
		il.setKernel(k.name, "MIOpen: the kernel it was launching", 40)
		il.evidence(k.ev)
	}
	a := work[ClassGPUMemoryFault]
	if k.name == "" || a == nil || a.f.Kernel != "" {
		return
	}
	a.setKernel(k.name, "MIOpen: the last kernel it prepared before the fault", 5)
	a.evidence(k.ev)
	a.note("the fault names no kernel: " + k.name + " is the last kernel MIOpen prepared before it (MIOPEN_LOG_LEVEL Info2), the likely one")
}
