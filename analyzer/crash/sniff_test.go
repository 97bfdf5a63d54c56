package crash

import "testing"

func TestJSONLog(t *testing.T) {
	for _, c := range []struct {
		in  string
		log bool
	}{
		// HF Trainer prints Python dicts, then the fault (issue 18)
		{"{'loss': 2.1432, 'grad_norm': 1.23, 'learning_rate': 4.9e-05, 'epoch': 0.01}\n{'loss': 2.0011}\nMemory access fault by GPU node-1", true},
		{"{'train_runtime': 612.3, 'train_samples_per_second': 3.1}\n", true},
		// JSON-lines logs: several documents
		{"{\"level\":\"info\",\"msg\":\"start\"}\n{\"level\":\"error\",\"msg\":\"x\"}\n", true},
		{"[1,2]\n[3]\n", true},
		// one document, whole or cut by the window
		{"{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\"", false},
		{"{\"exit_code\": 139, \"gpu_arch\": \"gfx950\"}\n", false},
		// a damaged trace is a trace, not a log (its reader reports the damage)
		{"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 01}]}\n{}\n", false},
		{"[[[[[[[[[[[[[[[[[[[[\n", false},
		{"[{\"a\": 1}]", false},
		{"{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [", false},
	} {
		if got := JSONLog([]byte(c.in)); got != c.log {
			t.Errorf("JSONLog(%.40q) = %v, want %v", c.in, got, c.log)
		}
	}
}
