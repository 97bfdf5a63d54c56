package idle

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/fixture"
)

// Issue 22 item 2: on the MI300X ResNet-18 training trace the host sits in
// hipFree during 98.9 % of the GPU idle time. The numbers are checked
// against testdata/resnet18_blocking.key.json, written by
// testdata/blocking_key.py (standard library Python, no analyzer code).
func TestBlockingFreeKey(t *testing.T) {
	st := fixture.Load(t, "traces2/tracelens_mi300_resnet18/train_resnet18.json.gz")
	var key struct {
		IdleUS float64 `json:"gpu_idle_us"`
		Calls  map[string]struct {
			Calls      int64   `json:"calls"`
			HostUS     float64 `json:"host_us"`
			IdleDuring float64 `json:"gpu_idle_during_us"`
		} `json:"calls"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "resnet18_blocking.key.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &key); err != nil {
		t.Fatal(err)
	}
	r := analyze(st)
	if got := float64(r.Total.Idle) / 1e3; math.Abs(got-key.IdleUS) > 0.01 {
		t.Errorf("GPU idle %.3f µs, key %.3f", got, key.IdleUS)
	}
	byCall := map[string]Sync{}
	for _, s := range r.Syncs {
		byCall[s.Call] = s
	}
	for _, name := range []string{"hipFree", "hipMalloc"} {
		k, s := key.Calls[name], byCall[name]
		if s.Calls != k.Calls || math.Abs(float64(s.HostTime)/1e3-k.HostUS) > 0.01 || math.Abs(float64(s.IdleDuring)/1e3-k.IdleDuring) > 0.01 {
			t.Errorf("%s: %d calls, host %.3f µs, idle during %.3f µs; key %+v", name, s.Calls, float64(s.HostTime)/1e3, float64(s.IdleDuring)/1e3, k)
		}
	}
	free := byCall["hipFree"]
	if r.Syncs[0].Call != "hipFree" || free.Kind != kindFree || free.Caller != "aten::convolution_backward" {
		t.Errorf("first sync %+v, want hipFree (free) called from aten::convolution_backward", r.Syncs[0])
	}
	if byCall["hipDeviceSynchronize"].Calls != key.Calls["hipDeviceSynchronize"].Calls {
		t.Errorf("hipDeviceSynchronize: %+v", byCall["hipDeviceSynchronize"])
	}
	tk := strings.Join(r.Takeaways(), "\n")
	if !strings.Contains(tk, "blocked in `hipFree`") || !strings.Contains(tk, "98.9 % of the GPU idle time") {
		t.Errorf("idle takeaway does not blame hipFree:\n%s", tk)
	}
	js := string(r.JSON("gputriage", "test", false))
	if !strings.Contains(js, `"kind": "free"`) || !strings.Contains(js, `"caller": "aten::convolution_backward"`) {
		t.Errorf("idle.json syncs lack kind/caller")
	}
}

// Which host calls block on the device, from real runtime and driver names
// of both vendors; stream-ordered (…Async) and managed ones do not.
func TestBlockingKind(t *testing.T) {
	for name, want := range map[string]string{
		"hipFree": kindFree, "cudaFree": kindFree, "cuMemFree_v2": kindFree, "hipHostFree": kindFree,
		"cudaFreeHost": kindFree, "hipFreeArray": kindFree, "cuMemFreeHost": kindFree,
		"hipMalloc": kindMalloc, "cudaMalloc": kindMalloc, "cuMemAlloc_v2": kindMalloc, "hipMallocPitch": kindMalloc,
		"hipExtMallocWithFlags": kindMalloc, "cudaMalloc3D": kindMalloc,
		"hipHostMalloc": kindHostAlloc, "hipHostAlloc": kindHostAlloc, "cudaHostAlloc": kindHostAlloc,
		"cudaMallocHost": kindHostAlloc, "cuMemAllocHost_v2": kindHostAlloc, "cuMemHostAlloc": kindHostAlloc,
		"hipDeviceSynchronize": kindSync, "cudaStreamSynchronize": kindSync, "hipEventSynchronize": kindSync,
		"cuCtxSynchronize":               kindSync,
		"D2H copy (hipMemcpyWithStream)": kindCopy, "H2D copy (cudaMemcpy)": kindCopy,
		".item() (aten::_local_scalar_dense)": kindItem,
		"hipFreeAsync":                        "", "cudaFreeAsync": "", "hipMallocAsync": "", "cudaMallocAsync": "",
		"hipMallocFromPoolAsync": "", "cudaMallocManaged": "", "hipMallocManaged": "",
		"hipLaunchKernel": "", "cudaLaunchKernel": "", "hipMemsetAsync": "", "cudnnFree": "",
		"cublasCreate_v2": "", "hipMemAddressFree": "", "cuLaunchKernel": "",
	} {
		if got := blockingKind(name); got != want {
			t.Errorf("blockingKind(%q) = %q, want %q", name, got, want)
		}
	}
}

// Issue 22 item 3: on SGLang decode the host-bound idle sits in torch's
// _device.py frame; the framework code under it is SGLang's attention
// backend preparing the graph replay, and that is what the takeaway
// names. The 463 ms stall lies outside the step window and is said to.
func TestFrameworkCulprit(t *testing.T) {
	st := fixture.Load(t, "traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz")
	r := analyze(st)
	const fw = "sglang/srt/layers/attention/aiter_backend.py(1654): init_forward_metadata_replay_cuda_graph"
	if len(r.Steps.Culprits) == 0 || !strings.HasPrefix(r.Steps.Culprits[0].Frame, "torch/") {
		t.Fatalf("steps culprits %+v: the innermost frame was torch's", r.Steps.Culprits)
	}
	if len(r.Steps.Framework) == 0 || r.Steps.Framework[0].Frame != fw {
		t.Errorf("steps framework culprits %+v, want %s first", r.Steps.Framework, fw)
	}
	for _, c := range r.Stages[0].Framework {
		if strings.HasPrefix(c.Frame, "torch/") || strings.HasPrefix(c.Frame, "triton/") || strings.HasPrefix(c.Frame, "<built-in") {
			t.Errorf("framework culprit %q is a library frame", c.Frame)
		}
	}
	if !r.Waits[0].OutsideSteps {
		t.Errorf("the 463 ms wait is not marked outside the steps: %+v", r.Waits[0])
	}
	tk := strings.Join(r.Takeaways(), "\n")
	for _, want := range []string{"under `" + fw + "`", "outside the step windows", "Longest wait: 463.2 ms outside the step windows"} {
		if !strings.Contains(tk, want) {
			t.Errorf("takeaway lacks %q:\n%s", want, tk)
		}
	}
	if strings.Contains(tk, "in `torch/utils/_device.py") {
		t.Errorf("takeaway blames torch's frame:\n%s", tk)
	}
}
