package crash

import "testing"

// Log lines shipped inside JSON by logging pipelines (sources per row) and the
// text unwrapJSONField reads from each.
func TestUnwrapJSONField(t *testing.T) {
	cases := []struct {
		src, line, want string
		ok              bool
	}{
		// Docker's json-file driver, one object a line
		// (docs.docker.com/engine/logging/drivers/json-file/)
		{"docker json-file", `{"log":"Log line is here\n","stream":"stdout","time":"2019-01-01T11:11:11.111111111Z"}`, "Log line is here\n", true},
		{"docker json-file, escaped quotes", `{"log":"172.18.0.1 - - [25/Jul/2018 19:04:18] \"GET / HTTP/1.1\" 200 -\n","stream":"stderr","time":"2018-07-25T19:04:18.4228346Z"}`, "172.18.0.1 - - [25/Jul/2018 19:04:18] \"GET / HTTP/1.1\" 200 -\n", true},
		// Google Cloud Logging export of a node's serial console
		// (2i2c-org/infrastructure#2359): escaped once more by the export
		{"gcp textPayload", `    "textPayload": "[195998.443208] node invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=991\\r\\n",`, `[195998.443208] node invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=991\r\n`, true},
		// a Cloud Run traceback in one textPayload (LogEntry.textPayload)
		{"gcp textPayload, multi-line", `  "textPayload": "Traceback (most recent call last):\n  File \"/app/main.py\", line 3, in f\nRuntimeError: CUDA error: out of memory",`, "Traceback (most recent call last):\n  File \"/app/main.py\", line 3, in f\nRuntimeError: CUDA error: out of memory", true},
		// journalctl -o json: MESSAGE is not the first key
		{"journald json", `{"__CURSOR":"s=1","_PID":"4242","MESSAGE":"python3[4242]: segfault at 0 ip 00007f sp 00007f error 4 in libamdhip64.so"}`, "python3[4242]: segfault at 0 ip 00007f sp 00007f error 4 in libamdhip64.so", true},
		// journalctl -o json-pretty
		{"journald json-pretty", `	"MESSAGE" : "amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!",`, "amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!", true},
		// a paste cut mid-string is closed
		{"cut", `{"log":"RuntimeError: CUDA error: an illegal memory acc`, "RuntimeError: CUDA error: an illegal memory acc", true},
		// not a log text field
		{"other key", `    "insertId": "7710",`, "", false},
		{"python repr", `{'loss': 2.1, 'log': 'x'}`, "", false},
		{"dmesg", `[  12.345] amdgpu: probe`, "", false},
		{"kernel-API metadata", `{"op": "sglang.rmsnorm", "exception": {"type": "RuntimeError"}}`, "", false},
	}
	for _, c := range cases {
		got, ok := unwrapJSONField([]byte(c.line))
		if ok != c.ok || got != c.want {
			t.Errorf("%s: unwrapJSONField(%q) = %q, %v; want %q, %v", c.src, c.line, got, ok, c.want, c.ok)
		}
	}
}

// The line inside the JSON is evidence like any log line: a dmesg OOM kill
// in a cloud logging export, a segfault in journald's JSON, a CUDA fault in
// docker's json-file log.
func TestWrappedLogLinesAreRead(t *testing.T) {
	cases := []struct{ name, text, class string }{
		{"gcp.json", "[\n  {\n    \"textPayload\": \"[195998.443208] node invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=991\\\\r\\\\n\",\n    \"insertId\": \"7710\"\n  }\n]\n", ClassHostOOMKill},
		{"journal.json", `{"__CURSOR":"s=1","_PID":"4242","MESSAGE":"python3[4242]: segfault at 0 ip 00007f0a sp 00007ffd error 4 in libamdhip64.so.6[7f0a+1000]"}` + "\n", ClassHostSegfault},
		{"container.log", `{"log":"RuntimeError: CUDA error: an illegal memory access was encountered\n","stream":"stderr","time":"2024-09-30T08:00:07.890123456Z"}` + "\n" + `{"log":"done\n","stream":"stdout","time":"2024-09-30T08:00:08Z"}` + "\n", ClassGPUMemoryFault},
	}
	for _, c := range cases {
		d := diagnoseWhole(c.name, []byte(c.text))
		if hasClass(d, c.class) == nil {
			t.Errorf("%s: no %s finding; got %v", c.name, c.class, classesOf(d))
		}
	}
	if !WrappedLog([]byte(cases[0].text)) {
		t.Error("a cloud logging export is not taken for a wrapped log")
	}
	if WrappedLog([]byte(`{"schemaVersion": 1, "traceEvents": [{"ph": "X", "name": "k", "args": {"message": "x"}}]}`)) {
		t.Error("a trace is taken for a wrapped log")
	}
}
