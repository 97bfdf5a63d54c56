package crash

import "testing"

// CLR's fat-binary assert (hip_code_object.cpp's StatCO::getStatFunc and
// getStatFuncAttr, the asserts ROCm/rocm-systems#938 and #2013 quote) is a
// code object that does not load for the GPU; a host assert elsewhere is not.
func TestFatBinAssert(t *testing.T) {
	for _, c := range []struct {
		text, fn string
		ok       bool
	}{
		{"hip_code_object.cpp:400: StatCO::getStatFunc: Assertion 'err == hipSuccess' failed", "getStatFunc", true},
		{"python3: /src/clr/hipamd/src/hip_code_object.cpp:481: hipError_t hip::StatCO::getStatFuncAttr(hipFuncAttributes*, const void*, int): Assertion `err == hipSuccess' failed.", "getStatFuncAttr", true},
		// another assert of the runtime names no fat binary
		{"hip_code_object.cpp:120: hip::FatBinaryInfo::ExtractFatBinary: Assertion 'false' failed", "", false},
		{"prog: file.cpp:46: void f(): Assertion `err == hipSuccess' failed.", "", false},
	} {
		fn, ok := extractFatBinAssert(c.text)
		if ok != c.ok || fn != c.fn {
			t.Errorf("%q: got %q %v, want %q %v", c.text, fn, ok, c.fn, c.ok)
		}
	}
	d := diagnoseWhole("x.log", []byte("hip_code_object.cpp:400: StatCO::getStatFunc: Assertion 'err == hipSuccess' failed\nAborted (core dumped)\n"))
	if f := hasClass(d, ClassArchMismatch); f == nil || hasClass(d, ClassDeviceAssert) != nil {
		t.Errorf("classes %v", classesOf(d))
	}
}
