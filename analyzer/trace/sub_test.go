package trace

import (
	"fmt"
	"reflect"
	"testing"
)

// subTrace is file f of a folder: kernels, CPU ops with shapes, a
// collective with its metadata on the CPU op and on the kernel, and a
// GPU annotation.
func subTrace(f, n int) []byte {
	b := []byte(`{"traceEvents": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"External id": %d, "Input Dims": [[%d, 8]], "Input type": ["float"]}},`, 100*i, i, f+i%4)
		b = fmt.Appendf(b, `{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": {"correlation": %d, "External id": %d}},`, f+i%3, 100*i+6, i, i)
		b = fmt.Appendf(b, `{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"External id": %d, "Collective name": "allreduce", "Process Group Name": "0", "Group size": 3}},`, 100*i+10, 10000+i)
		b = fmt.Appendf(b, `{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "pid": 0, "tid": 8, "ts": %d, "dur": 20, "args": {"correlation": %d, "External id": %d, "Collective name": "allreduce", "Seq": %d}},`, 100*i+16, 10000+i, 10000+i, i)
		b = fmt.Appendf(b, `{"ph": "X", "cat": "gpu_user_annotation", "name": "step", "pid": 0, "tid": 7, "ts": %d, "dur": 90}`, 100*i)
	}
	return append(b, "], \"distributedInfo\": {\"rank\": "+fmt.Sprint(f)+"}}"...)
}

func folderStore(t *testing.T, files, n int) *Store {
	t.Helper()
	s := NewStore()
	for f := 0; f < files; f++ {
		r := s.NewReader(fmt.Sprintf("rank%d.json", f))
		r.Write(subTrace(f, n+f))
		r.Close()
	}
	if len(s.Comms) == 0 || len(s.Shapes) == 0 || len(s.Annot) == 0 {
		t.Fatalf("the test traces give %d comms, %d shapes, %d annotations", len(s.Comms), len(s.Shapes), len(s.Annot))
	}
	return s
}

// Sub takes a file's records as one run when they are (a folder's files
// are read one after the other): the same sub-store as filtering record
// by record, for every file.
func TestSubRangeEqualsFiltered(t *testing.T) {
	s := folderStore(t, 3, 50)
	for fi := range s.Files {
		got := s.Sub(fi)
		want := &Store{}
		s.subFiltered(want, uint16(fi))
		for _, c := range []struct {
			what      string
			got, want any
		}{{"GPU", got.GPU, want.GPU}, {"CPU", got.CPU, want.CPU}, {"Python", got.Python, want.Python},
			{"Annot", got.Annot, want.Annot}, {"Shapes", got.Shapes, want.Shapes}, {"Comms", got.Comms, want.Comms}} {
			if reflect.ValueOf(c.want).Len() == 0 && c.what != "Python" {
				t.Fatalf("file %d: no %s records", fi, c.what)
			}
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("file %d: %s differ from the filtered sub-store", fi, c.what)
			}
		}
	}
}

// Records of one file split by another's are found apart (filtered).
func TestFileRangeInterleaved(t *testing.T) {
	file := func(o *Span) uint16 { return o.File }
	in := []Span{{File: 0}, {File: 1}, {File: 0}}
	if _, _, ok := fileRange(in, 0, file); ok {
		t.Error("file 0's records are split by file 1's, yet taken as one run")
	}
	if lo, hi, ok := fileRange(in, 1, file); !ok || lo != 1 || hi != 2 {
		t.Errorf("file 1: [%d, %d) %v, want [1, 2) true", lo, hi, ok)
	}
	if lo, hi, ok := fileRange(in, 2, file); !ok || lo != hi {
		t.Errorf("file 2 has no records: [%d, %d) %v", lo, hi, ok)
	}
}
