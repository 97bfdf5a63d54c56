package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// diff.json's kernel list is bounded as kernel_table.json's is (issue 24:
// 200 k distinct names made a row each): the largest changes keep their
// rows, the rest are summed per category into "(other kernels)" rows whose
// sums are exact and whose count is said.
func TestKernelsBounded(t *testing.T) {
	const n = 3 * limits.KernelRows
	side := func(name string, scale int64) Side {
		var rows []breakdown.Row
		var total int64
		for i := range n {
			cat := []string{"gemm", "other"}[i%2]
			d := int64(i+1) * 1000 * scale
			rows = append(rows, breakdown.Row{Stage: "all", Kernel: fmt.Sprintf("k%06d", i), Category: cat, Launches: 1, GPUTime: d})
			total += d
		}
		return Side{Name: name, Breakdown: &breakdown.Result{Stages: []breakdown.Stage{{Stage: "all", KernelCount: n, KernelTime: total}}, Rows: rows}}
	}
	r := Compare(side("a", 1), side("b", 2), Options{Force: true})
	if !r.KernelsTruncated || r.MergedKernels != n-(limits.KernelRows-1) {
		t.Fatalf("truncated %v, merged %d", r.KernelsTruncated, r.MergedKernels)
	}
	if len(r.Kernels) != limits.KernelRows+1 { // n-1 kept, one merged row per category
		t.Fatalf("%d rows", len(r.Kernels))
	}
	// the kept rows are the largest changes: k with the largest i first
	if r.Kernels[0].Kernel != fmt.Sprintf("k%06d", n-1) {
		t.Errorf("first row %q", r.Kernels[0].Kernel)
	}
	var a, b, merged int64
	for _, k := range r.Kernels {
		a += int64(k.AUS)
		b += int64(k.BUS)
		if k.Kernel == OtherKernels {
			if k.Status != "merged" || k.MergedKernels == 0 {
				t.Errorf("merged row %+v", k)
			}
			merged += int64(k.MergedKernels)
		}
	}
	if a != int64(r.A.KernelTimeUS) || b != int64(r.B.KernelTimeUS) || merged != int64(r.MergedKernels) {
		t.Errorf("sums a %d/%d b %d/%d merged %d/%d", a, r.A.KernelTimeUS, b, r.B.KernelTimeUS, merged, r.MergedKernels)
	}
	// a kernel: gate rule still sees a merged kernel (k000000 changed least)
	th, _ := ParseThreshold("kernel:k000000:+50%")
	if g := Compare(side("a", 1), side("b", 2), Options{Force: true, FailOn: []Threshold{th}}).Gate; len(g) != 1 || !g[0].Failed || g[0].DeltaUS != 1000 { // ns
		t.Errorf("gate on a merged kernel: %+v", g)
	}
	if md := string(r.Markdown()); !strings.Contains(md, fmt.Sprintf("top 25 of %d)", n)) {
		t.Errorf("the Markdown does not count every kernel:\n%.600s", md)
	}
}
