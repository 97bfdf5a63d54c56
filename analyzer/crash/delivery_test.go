package crash

import "testing"

// Each wrapper as real output writes it (threads cited), the line inside
// kept with its indentation, and what the wrapper says about the line.
func TestStripDelivery(t *testing.T) {
	for _, c := range []struct {
		in, rest  string
		rank, pid int
		host      string
		kernel    bool
	}{
		// journalctl short form (ollama/ollama#1148, ollama/ollama#12708)
		{"Nov 15 21:48:38 ai-desktop ollama[1315]: gs     0x0", "gs     0x0", -1, 1315, "ai-desktop", false},
		{"Aug 05 18:46:49 mi300 kernel: amdgpu 0000:83:00.0: amdgpu: GPU reset begin!", "amdgpu 0000:83:00.0: amdgpu: GPU reset begin!", -1, 0, "mi300", true},
		// rsyslog RFC 3339 with a pid
		{"2024-08-18T01:21:01.825131+00:00 node17 python3[3100]:   File \"x.py\", line 3", "  File \"x.py\", line 3", -1, 3100, "node17", false},
		// GitHub Actions' stamp: "word word: " after it is the message
		{"2025-11-12T11:25:13.4961658Z rocBLAS error: Cannot read", "rocBLAS error: Cannot read", -1, 0, "", false},
		// Python logging's default format
		{"2024-05-01 12:00:00,123 - INFO -     at foo()", "    at foo()", -1, 0, "", false},
		{"2024-05-01 12:00:00,123 - trainer - ERROR - boom", "boom", -1, 0, "", false},
		// (Wu0409/DuPL#12)
		{"2025-01-21 05:25:51,544 - train_final_coco.py - INFO: GPU type: NVIDIA RTX A6000", "GPU type: NVIDIA RTX A6000", -1, 0, "", false},
		// torchrun (tue-mps/eomt#12) and its tee under srun --label
		{"[rank1]:   File \"main.py\", line 186", "  File \"main.py\", line 186", 1, 0, "", false},
		{"3: [default3]:Traceback (most recent call last):", "Traceback (most recent call last):", 3, 0, "", false},
		// mpirun --tag-output (horovod/horovod#1029)
		{"[1,0]<stderr>:[939debe34dff:00468] Read -1", "[939debe34dff:00468] Read -1", 0, 0, "", false},
		// kubectl logs --prefix (geerlingguy/ansible-for-kubernetes#75)
		{"[pod/echo-req-7cfd7bf68f-nk5kr/hello] 172.17.0.1 - - GET", "172.17.0.1 - - GET", -1, 0, "", false},
		// docker compose's column; a table row is no wrapper
		{"ollama-1  | CUDA error: out of memory", "CUDA error: out of memory", -1, 0, "", false},
		{"Error | Meaning | Fix", "Error | Meaning | Fix", -1, 0, "", false},
		// a program's own stamp without a zone stays for stripOne
		{"2024-05-01 12:00:00 INFO x", "2024-05-01 12:00:00 INFO x", -1, 0, "", false},
		// a ctest number is stripped, never a rank
		{"5: [ RUN      ] hip.atomic_views_integral", "[ RUN      ] hip.atomic_views_integral", -1, 0, "", false},
	} {
		s := New()
		s.BeginFile("f")
		rest, w := s.stripDelivery([]byte(c.in))
		if string(rest) != c.rest || w.rank != c.rank || w.pid != c.pid || w.host != c.host || w.kernel != c.kernel {
			t.Errorf("%q: got %q rank %d pid %d host %q kernel %v", c.in, rest, w.rank, w.pid, w.host, w.kernel)
		}
		if w.text != c.in[:len(c.in)-len(rest)] {
			t.Errorf("%q: wrapper text %q", c.in, w.text)
		}
	}
}
