package crash

import "github.com/gputriage/gputriage/analyzer/internal/lazyre"

// CLR asserts that a registered kernel's fat binary was digested
// (hip_code_object.cpp, StatCO::getStatFunc / getStatFuncAttr:
// "assert(err == hipSuccess)" after digestFatBinary). It fires when the
// binary holds no code object the device loads — a library built without
// the GPU's target: ROCm/rocm-systems#938 ("when user loads module for a
// different gfx arch type … the runtime would segfault"), #2013 (the same
// asserts replaced by an error return). A build with asserts prints glibc's
// "hip_code_object.cpp:400: StatCO::getStatFunc: Assertion 'err ==
// hipSuccess' failed".
var reFatBinAssert = lazyre.New("hip_code_object\\.cpp:\\d+: [^:]*?(?:\\w+::)*StatCO::(getStatFunc\\w*)\\b.*Assertion [`'\u2018]err == hipSuccess['\u2019] failed")

// extractFatBinAssert returns the StatCO function whose fat-binary assert
// failed.
func extractFatBinAssert(t string) (string, bool) {
	m := reFatBinAssert.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// applyFatBinAssert: the kernel's code object did not load for this GPU —
// arch_mismatch, less sure (a corrupt binary fails the same way).
func (s *Session) applyFatBinAssert(l *line, fn string) {
	a := s.b.add(s, ClassArchMismatch, l, 0.6)
	a.addReason("the HIP runtime could not load a kernel's fat binary for this GPU (StatCO::" + fn + " asserted after digestFatBinary)")
	a.detail("source", "CLR fat-binary assert")
	a.note("the fat binary holds no code object this GPU loads: check the library was built for the GPU's gfx target (rocminfo | grep -m1 gfx; roc-obj-ls / llvm-objdump --offloading on the library)")
}
