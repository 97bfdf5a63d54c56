package crash

import (
	"strings"
	"testing"
)

// py-spy JSON dumps in the shapes seen in public material (see pyspyjson.go).
func TestPySpyJSON(t *testing.T) {
	cases := []struct{ src, doc, want string }{
		{"py-spy dump --json (py-spy's StackTrace array; benfred/py-spy#740 quotes its fields)",
			`[{"pid": 93120, "thread_id": 139871223711552, "thread_name": "MainThread", "os_thread_id": 93120, "active": false, "owns_gil": false,
			  "frames": [{"name": "synchronize", "filename": "/usr/lib/python3/torch/cuda/__init__.py", "module": null, "short_filename": "torch/cuda/__init__.py", "line": 1040, "locals": null}]}]`,
			"Process 93120: (py-spy dump --json)\nThread 93120 (idle): \"MainThread\"\n    synchronize (torch/cuda/__init__.py:1040)\n"},
		{"py-spy called as a library, Result serialised (a public repository's test data)",
			`{"Ok": {"pid": 1234, "binary": "python3", "stack_traces": [{"pid": 1234, "thread_id": 100, "thread_name": "MainThread", "os_thread_id": 5678, "active": true, "owns_gil": true,
			  "frames": [{"name": "inner", "filename": "a.py", "module": "a", "short_filename": "a.py", "line": 10, "locals": null}]}]}}`,
			"Process 1234: (py-spy dump --json)\nThread 5678 (active+gil): \"MainThread\"\n    inner (a.py:10)\n"},
		{"a stack service's py-spy answer, frames renamed (a public repository's docs)",
			`{"pid": 48213, "source": "py-spy", "threads": [{"thread_id": 8632442880, "thread_name": "MainThread", "os_thread_id": 48213, "owns_gil": true, "active": true,
			  "frames": [{"function": "_wait_for_lease", "file": "/app/pool.py", "line": 91, "module": null, "native": false, "locals": null}]}]}`,
			"Process 48213: (py-spy dump --json)\nThread 48213 (active+gil): \"MainThread\"\n    _wait_for_lease (/app/pool.py:91)\n"},
	}
	for _, c := range cases {
		if !PySpyJSON([]byte(c.doc)) {
			t.Errorf("%s: not routed as py-spy JSON", c.src)
		}
		ths, ok := extractPySpyJSON([]byte(c.doc))
		if !ok {
			t.Errorf("%s: not read", c.src)
			continue
		}
		if got := pyspyJSONText(ths); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
	for _, s := range []string{
		`[{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]`,
		`[{"Id": "abc", "State": {"OOMKilled": false, "ExitCode": 137}}]`,
	} {
		if PySpyJSON([]byte(s)) {
			t.Errorf("%s routed as py-spy JSON", s)
		}
	}
}

// A py-spy JSON dump gives the facts of the text dump: the main thread in
// torch.cuda.synchronize is a GPU wait (crash-heldout4 f12's shape).
func TestPySpyJSONFacts(t *testing.T) {
	doc := `[
  {"pid": 93120, "thread_id": 139871223711552, "thread_name": "MainThread", "os_thread_id": 93120, "active": false, "owns_gil": false,
   "frames": [{"name": "synchronize", "filename": "/x/torch/cuda/__init__.py", "module": null, "short_filename": "torch/cuda/__init__.py", "line": 1040, "locals": null, "is_entry": true},
              {"name": "run", "filename": "/w/loop.py", "module": null, "short_filename": "loop.py", "line": 260, "locals": null, "is_entry": true}]}
]
`
	d := diagnoseWhole("dump.json", []byte(doc))
	if len(d.Findings) == 0 || d.Findings[0].Class != ClassGPUKernelHang {
		t.Fatalf("got %+v", d.Findings)
	}
	if !strings.Contains(strings.Join(d.Inputs[0].Formats, " "), "pyspy_json") {
		t.Errorf("formats %v", d.Inputs[0].Formats)
	}
}
