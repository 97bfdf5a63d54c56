package analyzer

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/launch"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/roofline"
	"github.com/gputriage/gputriage/analyzer/timeline"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// genE2E appends the page test's generated trace (site/test/e2e.mjs
// generateTrace: per step a cpu_op with shapes, its hipLaunchKernel and the
// kernel, five kernel names on two streams) until about rawMB·10⁶ bytes.
func genE2E(rawMB int) []byte {
	names := []string{
		"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_ISA942_WG64_4_1",
		"void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)> >(int, at::native::direct_copy_kernel_cuda)",
		"paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1>",
		"aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 256, 16, true, false, true, 1>",
		"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	}
	ops := []string{"aten::mm", "aten::copy_", "vllm::paged_attention", "aiter::rmsnorm", "c10d::allreduce_"}
	limit := rawMB * 1e6
	b := make([]byte, 0, limit+4096)
	b = append(b, `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, `+
		`"computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304}], "hip_runtime_version": 70253211, `+
		`"displayTimeUnit": "ms", "traceEvents": [`+"\n"...)
	ts := 1_000_000.0
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for i := 0; len(b) < limit; i++ {
		n, ext, corr, stream := i%len(names), 100000+i, 5000+i, 7
		if n == 4 {
			stream = 9
		}
		kname, _ := json.Marshal(names[n])
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 251, "tid": 251, "ts": %s, "dur": 12.5, "args": {"External id": %d, "Record function id": 0, "Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Ev Idx": %d}}`+"\n", ops[n], f3(ts), ext, i)
		b = fmt.Appendf(b, `,{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 251, "tid": 251, "ts": %s, "dur": 6.25, "args": {"External id": %d, "kernel": %s, "cid": 107, "correlation": %d, "grid": [304, 1, 1], "block": [256, 1, 1], "shared memory": 0}}`+"\n", f3(ts+2), ext, kname, corr)
		b = fmt.Appendf(b, `,{"ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %d, "device": 0, "stream": %d, "correlation": %d, "kind": "Dispatch Kernel", "grid": [304, 1, 1], "block": [256, 1, 1]}}`+"\n", kname, stream, f3(ts+10), f3(float64(8+i%7)), ext, stream, corr)
		ts += 20
	}
	return append(b, "]}\n"...)
}

func finishBenchMB() int {
	if s := os.Getenv("GPUTRIAGE_FINISH_MB"); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	return 64
}

// BenchmarkFinish times Job.Finish (every analysis and artifact after the
// parse) on the generated trace (GPUTRIAGE_FINISH_MB, default 64 MB raw);
// the parse is redone per iteration outside the timer.
func BenchmarkFinish(b *testing.B) {
	raw := genE2E(finishBenchMB())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		j, err := New(Options{Command: "breakdown"})
		if err != nil {
			b.Fatal(err)
		}
		j.BeginFile("trace.json")
		j.FileSize(int64(len(raw)))
		if _, err := j.Write(raw); err != nil {
			b.Fatal(err)
		}
		j.EndFile()
		b.StartTimer()
		if res := j.Finish(); res.ExitCode != ExitOK {
			b.Fatal(res.Error)
		}
	}
}

// BenchmarkAnalyses times each analysis of Finish on one store of the
// generated trace, in the order Finish runs them.
func BenchmarkAnalyses(b *testing.B) {
	raw := genE2E(finishBenchMB())
	st := trace.NewStore()
	r := st.NewReader("trace.json")
	r.Write(raw)
	if f := r.Close(); !f.Complete {
		b.Fatal(f.Problem)
	}
	raw = nil
	joins := callsite.NewJoins(st)
	bd := breakdown.Analyze(st, breakdown.Options{Joins: joins})
	ids, names := bd.OpStage, bd.StageNames
	id := idle.Analyze(st, idle.Options{Joins: joins, StageOf: ids, StageNames: names})
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				f()
			}
		})
	}
	run("joins", func() { callsite.NewJoins(st) })
	run("breakdown", func() { breakdown.Analyze(st, breakdown.Options{Joins: joins}) })
	run("idle", func() { idle.Analyze(st, idle.Options{Joins: joins, StageOf: ids, StageNames: names}) })
	run("launch", func() {
		launch.Analyze(st, launch.Options{Joins: joins, StageOf: ids, StageNames: names, Idle: id, Classes: bd.Classes})
	})
	run("timeline", func() { timeline.Compute(st, 0); timeline.ComputeFacts(st, 0) })
	run("roofline", func() {
		roofline.Analyze(st, roofline.Options{Joins: joins, OpStage: ids, StageNames: names,
			DeviceName: "AMD Instinct MI300X", Arch: "gfx942", Mapping: st})
	})
	_ = report.Tool
}
