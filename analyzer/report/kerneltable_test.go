package report

import (
	"fmt"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
)

// A stage past the row limit keeps its largest kernels; the rest become one
// "(other kernels)" row per category, summed, and sorted in by time.
func TestCapRows(t *testing.T) {
	rows := []breakdown.Row{
		{Stage: "prefill", Kernel: "a", Category: "gemm", Provider: "hipBLASLt", Launches: 1, GPUTime: 100, Share: 0.5},
		{Stage: "prefill", Kernel: "b", Category: "gemm", Provider: "hipBLASLt", Launches: 2, GPUTime: 40, Share: 0.2, Graph: true},
		{Stage: "prefill", Kernel: "c", Category: "gemm", Provider: "rocBLAS", Launches: 3, GPUTime: 30, Share: 0.15, Graph: true},
		{Stage: "prefill", Kernel: "d", Category: "norm", Provider: "AITER", Launches: 4, GPUTime: 20, Share: 0.1, Graph: true},
		{Stage: "prefill", Kernel: "e", Category: "norm", Provider: "AITER", Launches: 5, GPUTime: 10, Share: 0.05, Graph: true},
		{Stage: "decode", Kernel: "x", Category: "gemm", Launches: 1, GPUTime: 7, Share: 1},
	}
	got := CapRows(rows, 1)
	var s []string
	for _, r := range got {
		s = append(s, fmt.Sprintf("%s %s %s %s n=%d t=%d s=%v g=%v m=%d", r.Stage, r.Kernel, r.Category, r.Provider, r.Launches, r.GPUTime, r.Share > 0, r.Graph, r.Merged))
	}
	want := []string{
		"prefill a gemm hipBLASLt n=1 t=100 s=true g=false m=0",
		"prefill (other kernels) gemm mixed n=5 t=70 s=true g=true m=2",
		"prefill (other kernels) norm AITER n=9 t=30 s=true g=true m=2",
		"decode x gemm  n=1 t=7 s=true g=false m=0",
	}
	if fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("got\n%q\nwant\n%q", s, want)
	}
	if got[1].Share < 0.349 || got[1].Share > 0.351 {
		t.Errorf("merged share %v, want 0.35", got[1].Share)
	}
	// Under the limit nothing changes.
	if got := CapRows(rows, 5); len(got) != len(rows) || got[4].Merged != 0 || got[4].Kernel != "e" {
		t.Errorf("under the limit: %+v", got)
	}
}
