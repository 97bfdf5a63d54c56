package crash

import (
	"bytes"
	"github.com/gputriage/gputriage/internal/fixture"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// benchLog builds an n-byte log of noise lines (several prefix styles, a
// tqdm bar, HIP traces) with one ROCr fault and its dmesg decode in the middle.
func benchLog(n int) []byte {
	noise := benchNoise
	fault := "Memory access fault by GPU node-4 (Agent handle: 0x5612a0c3e9f0) on address 0x7f3b2c001000. Reason: Page not present or supervisor privilege.\n" +
		"[ 4779.000001] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32783)\n" +
		"[ 4779.000002] amdgpu 0000:c1:00.0: amdgpu:  in process python3 pid 3100 thread python3 pid 3100)\n" +
		"[ 4779.000003] amdgpu 0000:c1:00.0: amdgpu:   in page starting at address 0x00007f3b2c001000 from client 10\n"
	var b bytes.Buffer
	b.Grow(n + 1024)
	for i := 0; b.Len() < n; i++ {
		if i == 5000 {
			b.WriteString(fault)
		}
		b.WriteString(noise[i%len(noise)])
	}
	return b.Bytes()
}

var benchNoise = []string{
	"(Worker_TP2 pid=3100) INFO 02-24 02:39:34 [gpu_model_runner.py:4758] Decode batch. #running-req: 12, #token: 18211, gen throughput (token/s): 1201.55\n",
	"[2025-08-02 19:24:23 TP3] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.03\n",
	"INFO:     172.16.19.148:48276 - \"POST /v1/completions HTTP/1.1\" 200 OK\n",
	":3:hip_module.cpp           :668 : 14629861947 us: [pid:31113 tid:0x7fa5a37fe700]  hipLaunchKernel ( 0x7fa9706d5550, {57,1,1}, {256,1,1}, 0x7fa5a37fc9a0, 0, stream:<null> )\n",
	":3:hip_module.cpp           :669 : 14629861952 us: [pid:31113 tid:0x7fa5a37fe700] hipLaunchKernel: Returned hipSuccess : \n",
	"Loading checkpoint shards:  75%|███████▌  | 3/4 [00:08<00:02,  2.83s/it]\n",
	"[ 4778.915423] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n",
}

// mixedLog concatenates every shared test log (both answer sets), each
// followed by about as many bytes of noise lines, repeated to n bytes.
func mixedLog(tb testing.TB, n int) []byte {
	var logs [][]byte
	for _, dir := range answerSets {
		ms, _ := filepath.Glob(filepath.Join(dir, "*"))
		sort.Strings(ms)
		for _, m := range ms {
			if b := filepath.Base(m); b == "answers.json" || b == "SOURCES.md" || b == "crash_meta.tsv" {
				continue
			}
			if d, err := os.ReadFile(m); err == nil {
				logs = append(logs, d)
			}
		}
	}
	if len(logs) == 0 {
		fixture.Missing(tb, "shared logs not available")
	}
	var b bytes.Buffer
	b.Grow(n + 1<<20)
	k := 0
	for b.Len() < n {
		for _, d := range logs {
			b.Write(d)
			if len(d) > 0 && d[len(d)-1] != '\n' {
				b.WriteByte('\n')
			}
			for end := b.Len() + len(d); b.Len() < end; k++ {
				b.WriteString(benchNoise[k%len(benchNoise)])
			}
		}
	}
	return b.Bytes()
}

func benchStream(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := New()
		s.BeginFile("big.log")
		for off := 0; off < len(data); off += 64 << 10 {
			s.Write(data[off:min(off+64<<10, len(data))])
		}
		s.EndFile()
		if d := s.Diagnosis(); len(d.Findings) == 0 {
			b.Fatal("no finding")
		}
	}
}

// BenchmarkDiagnoseMixed64MB streams the shared logs with noise (~64 MiB).
func BenchmarkDiagnoseMixed64MB(b *testing.B) { benchStream(b, mixedLog(b, 64<<20)) }

// BenchmarkDiagnose streams a generated log (default 32 MiB; scale with
// -benchtime) in 64 KiB chunks and reports MB/s and allocations.
func BenchmarkDiagnose32MB(b *testing.B) {
	data := benchLog(32 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := New()
		s.BeginFile("big.log")
		for off := 0; off < len(data); off += 64 << 10 {
			end := off + 64<<10
			if end > len(data) {
				end = len(data)
			}
			s.Write(data[off:end])
		}
		s.EndFile()
		d := s.Diagnosis()
		if len(d.Findings) == 0 {
			b.Fatal("fault not found")
		}
	}
}

func TestBenchLogFindsFault(t *testing.T) {
	s := New()
	s.BeginFile("b")
	s.Write(benchLog(2 << 20))
	d := s.Diagnosis()
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.PID == nil || *f.PID != 3100 || len(d.Findings) != 1 {
		t.Fatalf("%s", d.JSON())
	}
	_ = strconv.Itoa
}
