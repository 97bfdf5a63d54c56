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

func extractMIOpenPrepared(t string) string {
	i := strings.Index(t, miopenPrepare)
	if i < 0 {
		return ""
	}
	k := strings.TrimSpace(t[i+len(miopenPrepare):])
	if j := strings.IndexAny(k, " \t\"'`"); j >= 0 {
		k = k[:j]
	}
	return k
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
// names none.
func (b *builder) applyMIOpenKernel(work map[string]*agg) {
	k := b.facts.miopenKernel
	a := work[ClassGPUMemoryFault]
	if k.name == "" || a == nil || a.f.Kernel != "" {
		return
	}
	a.setKernel(k.name, "MIOpen: the last kernel it prepared before the fault", 5)
	a.evidence(k.ev)
	a.note("the fault names no kernel: " + k.name + " is the last kernel MIOpen prepared before it (MIOPEN_LOG_LEVEL Info2), the likely one")
}
