package crash

import (
	"strings"
	"testing"
)

// The recorder's switches as real runs set them: TORCH_NCCL_TRACE_BUFFER_SIZE
// (crash-formats §12), the PyTorch 2.11 spelling TORCH_FR_BUFFER_SIZE
// (MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark#132), ProcessGroupNCCL's
// dump line and fr_trace / torchfrtrace's verdict (pytorch/tutorials#3163).
func TestExtractFlightRecorderOn(t *testing.T) {
	for _, c := range []struct {
		line string
		on   bool
	}{
		{"+ export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1", true},
		{"      - TORCH_FR_BUFFER_SIZE=2000", true},
		{"[rank0]:[E0611 05:31:21.511084302 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 0] Dumping flight recorder to /shared/fr/trace_0", true},
		{"Not all ranks joining collective 5 at entry 4", true},
		{"TORCH_NCCL_TRACE_BUFFER_SIZE=0", false},
		{"Enable the flight recorder with TORCH_NCCL_TRACE_BUFFER_SIZE", false},
	} {
		if got := extractFlightRecorderOn(c.line); got != c.on {
			t.Errorf("%q: %v, want %v", c.line, got, c.on)
		}
	}
}

// A watchdog timeout whose run already had the recorder on is not told to
// enable it; without it the step stays.
func TestFlightRecorderStepNotAskedWhenOn(t *testing.T) {
	wd := "[rank0]:[E0611 05:31:20.402211871 ProcessGroupNCCL.cpp:685] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=55310, OpType=_ALLGATHER_BASE, NumelIn=65536000, NumelOut=524288000, Timeout(ms)=300000) ran for 300028 milliseconds before timing out.\n"
	for _, c := range []struct {
		name, log string
		asks      bool
	}{
		{"recorder env set", "+ export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1\n" + wd, false},
		{"analysis pasted", wd + "Not all ranks joining collective 55310 at entry 1997\nmissing ranks: {5}\n", false},
		{"nothing about the recorder", wd, true},
	} {
		f := hasClass(diagnoseWhole("train.log", []byte(c.log)), ClassCollectiveTimeout)
		if f == nil {
			t.Fatalf("%s: no collective_timeout", c.name)
		}
		asks := strings.Contains(strings.Join(f.NextSteps, "\n"), "TORCH_NCCL_TRACE_BUFFER_SIZE=")
		if asks != c.asks {
			t.Errorf("%s: asks to enable the recorder %v, want %v: %q", c.name, asks, c.asks, f.NextSteps)
		}
	}
}
