package crash

import "testing"

// glibc's heap-check aborts, each wording from a public thread: a host-side
// memory bug, read as the host crash class.
func TestGlibcHeapAbort(t *testing.T) {
	for _, c := range []struct {
		src, text, msg string
	}{
		{"https://github.com/pytorch/pytorch/issues/2542", "*** Error in `/usr/bin/python2.7': free(): invalid pointer: 0x00007f801fcdbb80 ***", "free(): invalid pointer"},
		{"https://github.com/pytorch/pytorch/issues/5607", "*** Error in `python': free(): invalid pointer: 0x00007f51b9c8d780 ***", "free(): invalid pointer"},
		{"https://github.com/pytorch/pytorch/issues/95770 (title)", "free(): invalid pointer", "free(): invalid pointer"},
		{"https://github.com/JuliaGPU/AMDGPU.jl/issues/216", "free(): invalid pointer", "free(): invalid pointer"},
		// prose and a grep pattern quoting it are none
		{"prose", "The run printed free(): invalid pointer at exit.", ""},
		{"an allocator name alone", "malloc(): fine", ""},
	} {
		msg, ok := extractGlibcHeapAbort(c.text)
		if ok != (c.msg != "") || msg != c.msg {
			t.Errorf("%s: extractGlibcHeapAbort(%q) = %q, %v; want %q", c.src, c.text, msg, ok, c.msg)
			continue
		}
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if got := hasClass(d, ClassHostSegfault) != nil; got != ok {
			t.Errorf("%s: host_segfault %v for %q: %v", c.src, got, c.text, classesOf(d))
		}
	}
}
