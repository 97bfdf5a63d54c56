package fuse

import (
	"github.com/gputriage/gputriage/internal/fixture"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// sharedTraces lists every trace file of the shared test data (not the
// JSON sidecars that hold no events).
func sharedTraces(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test reads every trace")
	}
	var out []string
	for _, dir := range []string{"traces", "gpu/traces"} {
		root := filepath.Join(shared, dir)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".json") && !strings.HasSuffix(d.Name(), "execution_details.json") {
				rel, _ := filepath.Rel(shared, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	if len(out) == 0 {
		fixture.Missing(t, "shared test data not available")
	}
	return out
}

// TestOneRowPerKernel: on every shared trace, no GPU op is counted in two
// fuse rows (issue 10: SGLang's Q/K-norm kernel was in both the QK-norm row
// and the already-fused add+RMSNorm row, overstating the latter ~2×), and
// candidate paths never name a framework the trace did not come from.
func TestOneRowPerKernel(t *testing.T) {
	for _, rel := range sharedTraces(t) {
		res := result(t, rel)
		owner := map[int32]string{}
		for _, row := range res.Rows {
			for _, i := range row.ops {
				if prev, ok := owner[i]; ok {
					t.Errorf("%s: GPU op %d is in row %q and in row %q", rel, i, prev, row.Stage+" "+row.Pattern)
				}
				owner[i] = row.Stage + " " + row.Pattern
			}
			cand := strings.ToLower(row.Candidate)
			if res.Framework != FrameworkSGLang && strings.Contains(cand, "sglang") ||
				res.Framework != FrameworkVLLM && strings.Contains(cand, "vllm") {
				t.Errorf("%s (%s): row %q suggests another framework's path: %s", rel, res.Framework, row.Pattern, row.Candidate)
			}
			for _, e := range row.Evidence {
				if row.Rule == RuleChain && strings.HasPrefix(row.Pattern, "Unfused RMSNorm") &&
					e.Category != "elementwise" && e.Category != "reduction" && e.Category != "norm" {
					t.Errorf("%s: RMSNorm ladder row cites a %s kernel: %s", rel, e.Category, e.Kernel)
				}
			}
		}
	}
}

func TestDetectFramework(t *testing.T) {
	for rel, want := range map[string]string{
		sgDecode: FrameworkSGLang,
		vlFull:   FrameworkVLLM,
		xdit:     FrameworkXDiT,
		gEager:   FrameworkPyTorch,
	} {
		if got := result(t, rel).Framework; got != want {
			t.Errorf("%s: framework %s, want %s", rel, got, want)
		}
	}
}

// TestXDiTRows: the xDiT FLUX trace's SageAttention quantization
// (sage_quant_kernel, Inductor abs/amax) is not a norm, and Inductor's fused
// norm+RoPE kernels are not an unfused "ladder" (issue 10).
func TestXDiTRows(t *testing.T) {
	for _, row := range result(t, xdit).Rows {
		for _, e := range row.Evidence {
			if strings.Contains(row.Pattern, "RMSNorm") && (strings.Contains(e.Kernel, "sage_quant") || strings.Contains(e.Kernel, "amax") ||
				strings.HasPrefix(e.Kernel, "triton_")) {
				t.Errorf("row %q cites %s", row.Pattern, e.Kernel)
			}
		}
		if strings.Contains(row.Candidate, "layernorm.py") {
			t.Errorf("xDiT row suggests SGLang's layernorm.py: %s", row.Candidate)
		}
	}
}
