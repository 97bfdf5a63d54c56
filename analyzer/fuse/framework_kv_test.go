package fuse

import (
	"strings"
	"testing"
)

// Issue 22 item 13: a diffusion (xDiT) trace gets no KV-cache fusion
// suggestion (it keeps no KV cache); serving frameworks still do.
func TestNoKVCacheForDiffusion(t *testing.T) {
	for _, r := range Catalog {
		for _, rocm := range []bool{false, true} {
			if got := r.Candidate.For(rocm, FrameworkXDiT, ""); strings.Contains(got, "KV-cache") || strings.Contains(got, "KV cache") {
				t.Errorf("%s (rocm %v): xDiT gets %q", r.ID, rocm, got)
			}
		}
	}
	var q *Rule
	for i := range Catalog {
		if Catalog[i].ID == RuleQuantize {
			q = &Catalog[i]
		}
	}
	if q == nil || !strings.Contains(q.Candidate.For(true, FrameworkSGLang, ""), "KV-cache write") {
		t.Error("the quantize rule lost its KV-cache path for serving frameworks")
	}
}
