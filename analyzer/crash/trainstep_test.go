package crash

import "testing"

// A step / iteration counter on a line that reports the loss, in the
// wordings of real training logs; the text before the counter names its
// series, so two logs' counters are never compared.
func TestExtractTrainStep(t *testing.T) {
	for _, c := range []struct {
		src, line string
		step      int64
		ok        bool
	}{
		{"https://github.com/epfLLM/Megatron-LLM/issues/11", " iteration      182/  250000 | consumed samples:       186368 | elapsed time per iteration (ms): 126995.3 | learning rate: 1.365E-05 | global batch size:  1024 | lm loss: 2.382640E+00 | loss scale: 1.0 | grad norm: 0.227 | number of skipped iterations:   0 | number of nan iterations:   0 |", 182, true},
		{"https://github.com/pytorch/torchtitan/pull/950", "[rank0]:[titan] 2025-03-12 11:10:21,511 - root - INFO - step: 22  loss:  6.2250  memory:  1.41GiB(1.79%)  tps: 193,831  tflops: 18.36  mfu: 1.86%", 22, true},
		{"https://github.com/pytorch/torchtitan/pull/2389 (padded counter)", "[titan] 2026-02-24 19:46:17,508 - root - INFO - step:  4  loss:  7.62585  grad_norm: 26.6250  memory: 66.91GiB(37.51%)  tps: 10,050  tflops: 314.71  mfu: 13.99%", 4, true},
		{"a plain loop", "[2026-11-26 10:14:01] step 4410 | loss 2.0412 | 3.91 s/step", 4410, true},
		{"no loss on the line (a setup step)", "step 3: downloading the tokenizer", 0, false},
		{"a loss without a counter", "{'loss': 2.0412, 'learning_rate': 1e-05, 'epoch': 0.5}", 0, false},
	} {
		st, ok := extractTrainStep(c.line)
		if ok != c.ok || ok && st.step != c.step {
			t.Errorf("%s: %+v %v, want %d %v", c.src, st, ok, c.step, c.ok)
		}
	}
	a, _ := extractTrainStep("[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: 200  loss:  6.1384")
	b, _ := extractTrainStep("[rank0]:[titan] 2025-06-16 22:31:04,970 - root - INFO - step: 210  loss:  6.0388")
	if a.series != b.series {
		t.Errorf("one torchtitan series (pytorch/torchtitan#1287): %q vs %q", a.series, b.series)
	}
}

// Training steps that rise after a py-spy dump defeat the dump's hang
// readings (a busy thread, a GPU wait, a collective wait): the process was
// working. Steps that rise only before the dump are what a hung trainer
// prints before it hangs, and defeat nothing.
func TestTrainStepsDefeatPySpyHang(t *testing.T) {
	dump := func(state, frame string) string {
		return "Process 55012: python pretrain.py\nPython v3.11.9 (/opt/conda/bin/python3.11)\n\nThread 55012 (" + state + "): \"MainThread\"\n    " + frame + "\n    train_step (pretrain.py:244)\n    main (pretrain.py:331)\n"
	}
	before := " iteration      182/  250000 | consumed samples:       186368 | lm loss: 2.382640E+00 |\n iteration      183/  250000 | consumed samples:       187392 | lm loss: 2.471678E+00 |\n"
	after := " iteration      184/  250000 | consumed samples:       188416 | lm loss: 2.408367E+00 |\n"
	for _, c := range []struct {
		name, frame, state, class string
	}{
		{"busy in backward", "_engine_run_backward (torch/autograd/graph.py:829)", "active+gil", ClassCPUHang},
		{"waiting on .item()", "synchronize (torch/cuda/__init__.py:954)", "idle", ClassGPUKernelHang},
	} {
		hung := diagnoseWhole("hang.txt", []byte(before+dump(c.state, c.frame)))
		if hasClass(hung, c.class) == nil {
			t.Errorf("%s, steps only before the dump: no %s: %v", c.name, c.class, classesOf(hung))
		}
		ran := diagnoseWhole("ran.txt", []byte(before+dump(c.state, c.frame)+after))
		for _, x := range []string{ClassCPUHang, ClassGPUKernelHang, ClassCollectiveTimeout} {
			if hasClass(ran, x) != nil {
				t.Errorf("%s, steps rose after the dump: %s", c.name, x)
			}
		}
	}
}

// A wave snapshot taken on purpose (SIGQUIT to a healthy trainer) or one
// rocgdb attach, followed by rising steps, is no hang; the same dump as the
// file's last word is.
func TestHangSnapshotRanOn(t *testing.T) {
	dump := "$ kill -s SIGQUIT 40112\n--------------------------------------------------------\n" +
		"wave_8: pc=0x7f1a2204a1c0 (kernel_code_entry=0x7f1a22049e00 <my_reduce_kernel(float*, int)>, kernargs=0x7f1a00200000) (running)\n\n" +
		"--------------------------------------------------------\n" +
		"wave_9: pc=0x7f1a2204a1c0 (kernel_code_entry=0x7f1a22049e00 <my_reduce_kernel(float*, int)>, kernargs=0x7f1a00200000) (running)\n\n"
	before := "step 1200 | loss 2.1874 | 412 ms/step\nstep 1210 | loss 2.1860 | 415 ms/step\n"
	after := "step 1220 | loss 2.1841 | 411 ms/step\nstep 1230 | loss 2.1822 | 412 ms/step\n"
	if d := diagnoseWhole("run.log", []byte(before+dump+after)); hasClass(d, ClassGPUKernelHang) != nil {
		t.Fatalf("steps rose after the snapshot: %v", classesOf(d))
	}
	if d := diagnoseWhole("run.log", []byte(before+dump)); hasClass(d, ClassGPUKernelHang) == nil {
		t.Fatalf("running waves with no progress after them: %v", classesOf(d))
	}
}
