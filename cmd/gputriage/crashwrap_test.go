package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// wrapTransform rewrites the files of a case the way a delivery path does.
// line rewrites each line of a text log (without its end of line); files,
// when set, rewrites the case as a whole.
type wrapTransform struct {
	name  string
	line  func(c wrapCtx, l string) string
	files func(fs []metaInput) []metaInput
}

// wrapCtx is what a prefix may carry: the rank and pid a wrapper would name.
// A wrapper that names a rank names the one the key blames when there is one
// (a prefix that contradicts the log is not the same incident).
type wrapCtx struct {
	rank, pid int
	no        int // 0-based line index in its file
}

// The wrappings, each seen in real output (two threads cited each). The
// first is the identity: the unwrapped run.
var wrapTransforms = []wrapTransform{
	{name: "identity"},
	// RFC 3339 stamps a container runtime or collector put in front of
	// every line: NVIDIA/nccl#1920 (before NCCL's own prefix),
	// NVIDIA/open-gpu-kernel-modules#446 (Talos' "[RFC3339]:" kernel lines)
	{name: "iso8601", line: func(c wrapCtx, l string) string { return "2024-05-01T12:00:00+00:00 " + l }},
	// syslog's RFC 3339 / RFC 5424 form "2024-01-11T10:44:56.312345+00:00 host prog[pid]: ":
	// nginx/nginx#1287 (TIMESTAMP HOST APP PID), luigiberrettini/NLog.Targets.Syslog#32
	// (RFC 3339 stamps for rsyslog)
	{name: "syslog", line: func(c wrapCtx, l string) string {
		return fmt.Sprintf("2024-05-01T12:00:00.312345+00:00 node07 python[%d]: %s", c.pid, l)
	}},
	// Python logging's asctime format with " - LEVEL - ":
	// TuSimple/centerformer#4, Wu0409/DuPL#12 (" - file.py - INFO: ")
	{name: "pylogging", line: func(c wrapCtx, l string) string { return "2024-05-01 12:00:00,123 - INFO - " + l }},
	// PyTorch's per-rank prefix "[rank3]:":
	// tue-mps/eomt#12, vllm-project/vllm#20170, hiyouga/LlamaFactory#6953
	{name: "torchrun", line: func(c wrapCtx, l string) string { return fmt.Sprintf("[rank%d]:%s", c.rank, l) }},
	// torchrun --tee's "[default3]:" (role default, local rank 3):
	// rwth-i6/i6_core#658, pytorch/pytorch#137523 (TorchX "… [default0]:[rank0]:")
	{name: "torchrun_tee", line: func(c wrapCtx, l string) string { return fmt.Sprintf("[default%d]:%s", c.rank, l) }},
	// srun --label's task prefix "3: ":
	// awslabs/awsome-distributed-ai#192, NOAA-EMC/global-workflow#454
	{name: "srun_label", line: func(c wrapCtx, l string) string { return fmt.Sprintf("%d: %s", c.rank, l) }},
	// Open MPI's mpirun --tag-output "[1,3]<stderr>:":
	// horovod/horovod#1029, horovod/horovod#1421, horovod/horovod#3929
	{name: "mpirun_tag", line: func(c wrapCtx, l string) string { return fmt.Sprintf("[1,%d]<stderr>:%s", c.rank, l) }},
	// docker compose's service column "trainer-1  | ":
	// ggml-org/llama.cpp#11476 ("deep-seek-1  | "), vllm-project/vllm#10439 ("vllm-1  | "),
	// ggml-org/llama.cpp#1866
	{name: "compose", line: func(c wrapCtx, l string) string { return "trainer-1  | " + l }},
	// kubectl logs --prefix "[pod/<pod>/<container>] ":
	// geerlingguy/ansible-for-kubernetes#75, kubernetes/kubernetes#76471, stern/stern#58
	{name: "kubectl", line: func(c wrapCtx, l string) string { return "[pod/trainer-worker-0/pytorch] " + l }},
	// journalctl's short form "May 01 12:00:00 host prog[pid]: ":
	// ollama/ollama#1148, ollama/ollama#12708, SafirSDK/safir-sdk-core#362
	{name: "journald", line: func(c wrapCtx, l string) string {
		return fmt.Sprintf("May 01 12:00:00 node07 python[%d]: %s", c.pid, l)
	}},
	// GitHub Actions' raw log stamps "2024-05-01T12:00:00.1234567Z ":
	// ROCm/TheRock#2118, AnswerDotAI/ghapi#235 (job logs stamped line by line)
	{name: "gha", line: func(c wrapCtx, l string) string { return "2024-05-01T12:00:00.1234567Z " + l }},
	// Docker's json-file driver (what kubectl and `docker logs` read back
	// from /var/lib/docker/containers/…-json.log), Go's encoder escaping <>&:
	// moby/moby#1211, oracle/railcar#32, docker-library/docker#224
	{name: "jsonfile", line: func(c wrapCtx, l string) string {
		b, _ := json.Marshal(l + "\n")
		return `{"log":` + string(b) + `,"stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}`
	}},
	// CRLF line ends ("^M" in the paste):
	// vllm-project/vllm#11366, vllm-project/vllm#31709
	{name: "crlf", line: func(c wrapCtx, l string) string { return strings.TrimSuffix(l, "\r") + "\r" }},
	// ANSI colour around each line (loguru, rich, uvicorn, vLLM's colour
	// logger when stderr is a terminal captured by `script` or tmux):
	// vllm-project/vllm#14404, vllm-project/vllm#1160
	{name: "ansi", line: func(c wrapCtx, l string) string { return "\x1b[0;31m" + l + "\x1b[0m" }},
	// a progress bar redrawn with carriage returns, the log line printed
	// over it: "…it/s]\r" then the message on the same physical line:
	// huggingface/trl#1995, modelscope/DiffSynth-Studio#458, horovod/horovod#3871
	// (a blank line keeps the bar: nothing overwrites it)
	{name: "progress_cr", line: func(c wrapCtx, l string) string {
		if strings.TrimRight(l, "\r") == "" {
			return l
		}
		return "Loading checkpoint shards:  40%|████      | 2/5 [00:03<00:04,  1.62s/it]\r" + l
	}},
	// unrelated healthy lines from other processes between the lines (every
	// fourth; ranks interleave so in horovod/horovod#1421 and #3871): vLLM's
	// stats logger (vllm-project/vllm#12314), Trainer's loss dict, a training
	// loop's step line.
	{name: "interleave", files: interleaveHealthy},
	// files renamed to neutral names: a reader never decides by a name.
	{name: "rename", files: renameNeutral},
}

// healthyLines are lines of working jobs, none evidence of anything.
var healthyLines = []string{
	"INFO 05-01 12:00:00 [loggers.py:116] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.2 tokens/s, Running: 3 reqs, Waiting: 0 reqs",
	"{'loss': 2.3141, 'grad_norm': 0.8712, 'learning_rate': 2.9e-05, 'epoch': 0.42}",
	"[2024-05-01 12:00:00] train.py:211: step 1200 | loss 2.314 | lr 3.0e-04 | tokens/s 41210",
}

func interleaveHealthy(fs []metaInput) []metaInput {
	out := make([]metaInput, len(fs))
	for i, f := range fs {
		out[i] = f
		if !textLog(f.data) {
			continue
		}
		var b bytes.Buffer
		lines := strings.SplitAfter(string(f.data), "\n")
		for j, l := range lines {
			b.WriteString(l)
			if j%4 == 3 && strings.HasSuffix(l, "\n") {
				b.WriteString(healthyLines[(j/4)%len(healthyLines)])
				if strings.HasSuffix(l, "\r\n") {
					b.WriteByte('\r')
				}
				b.WriteByte('\n')
			}
		}
		out[i].data = b.Bytes()
	}
	return out
}

func renameNeutral(fs []metaInput) []metaInput {
	out := make([]metaInput, len(fs))
	for i, f := range fs {
		out[i] = metaInput{name: fmt.Sprintf("input-%d", i+1), data: f.data}
	}
	return out
}

// apply returns the case's files under the transform; files that are no
// line log (binary, a JSON document) go through unchanged.
func (tr wrapTransform) apply(fs []metaInput) []metaInput {
	return tr.applyCtx(fs, wrapCtx{rank: 3, pid: 1234})
}

func (tr wrapTransform) applyCtx(fs []metaInput, ctx wrapCtx) []metaInput {
	if tr.files != nil {
		return tr.files(fs)
	}
	if tr.line == nil {
		return fs
	}
	out := make([]metaInput, len(fs))
	for i, f := range fs {
		out[i] = f
		if !textLog(f.data) {
			continue
		}
		var b bytes.Buffer
		b.Grow(len(f.data) * 2)
		lines := strings.SplitAfter(string(f.data), "\n")
		for j, l := range lines {
			if l == "" {
				continue // after the last "\n"
			}
			nl := strings.HasSuffix(l, "\n")
			l = strings.TrimSuffix(l, "\n")
			c := ctx
			c.no = j
			b.WriteString(tr.line(c, l))
			if nl {
				b.WriteByte('\n')
			}
		}
		out[i].data = b.Bytes()
	}
	return out
}

// textLog reports whether b is a line log: no NUL (binary, UTF-16), not a
// whole JSON document (those are read as documents, never line by line).
func textLog(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	t := bytes.TrimSpace(b)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		return false
	}
	return true
}

// The transforms do what they say: a prefix on every line, line ends kept,
// documents left alone.
func TestWrapTransforms(t *testing.T) {
	in := []metaInput{{name: "a/rank0.log", data: []byte("one\r\ntwo\n\nthree")}, {name: "b.json", data: []byte(`{"a": 1}`)}}
	byName := map[string]wrapTransform{}
	for _, tr := range wrapTransforms {
		byName[tr.name] = tr
	}
	for name, want := range map[string]string{
		"identity":   "one\r\ntwo\n\nthree",
		"srun_label": "3: one\r\n3: two\n3: \n3: three",
		"crlf":       "one\r\ntwo\r\n\r\nthree\r",
		"jsonfile":   `{"log":"one\r\n","stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}` + "\n" + `{"log":"two\n","stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}` + "\n" + `{"log":"\n","stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}` + "\n" + `{"log":"three\n","stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}`,
	} {
		tr, ok := byName[name]
		if !ok {
			t.Fatalf("no transform %s", name)
		}
		out := tr.apply(in)
		if got := string(out[0].data); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
		if string(out[1].data) != `{"a": 1}` {
			t.Errorf("%s rewrote a JSON document: %q", name, out[1].data)
		}
	}
	if got := renameNeutral(in); got[0].name != "input-1" || got[1].name != "input-2" {
		t.Errorf("rename: %v", got)
	}
	if got := string(interleaveHealthy([]metaInput{{data: []byte("1\n2\n3\n4\n5\n")}})[0].data); got != "1\n2\n3\n4\n"+healthyLines[0]+"\n5\n" {
		t.Errorf("interleave: %q", got)
	}
}
