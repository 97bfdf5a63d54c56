package trace

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gputriage/gputriage/analyzer/limits"
)

// blockTrace is a small trace and the offset where its second half starts
// between two elements.
func blockTrace(n int) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents": [`)
	cut := 0
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i == n/2 {
			cut = b.Len()
		}
		fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": %d, "ts": %d, "dur": 2, "args": {"correlation": %d}}`, i%3, 7+i%2, 10*i, i)
		fmt.Fprintf(&b, ",\n"+`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"External id": %d, "Input Dims": [[%d, 8]], "Input type": ["float"]}}`, 10*i, i, i%4)
	}
	b.WriteString("\n], \"traceName\": \"t\"}\n")
	return b.Bytes(), cut
}

// One reader over the whole file and a reader plus a merged block give
// the same store.
func TestMergeEqualsOneReader(t *testing.T) {
	data, cut := blockTrace(200)
	one := NewStore()
	r := one.NewReader("t.json")
	r.Write(data)
	r.Close()

	two := NewStore()
	r2 := two.NewReader("t.json")
	r2.Write(data[:cut])
	if ok, bare := r2.Splittable(); !ok || bare {
		t.Fatalf("not splittable at the cut: %v %v", ok, bare)
	}
	b := NewBlockReader(limits.Limits{}, int64(cut), false)
	b.Write(data[cut:])
	if err := r2.Merge(b.AppendBlock(nil)); err != nil {
		t.Fatal(err)
	}
	r2.Close()
	if fmt.Sprint(one.Names) != fmt.Sprint(two.Names) {
		t.Fatalf("names differ:\n%v\n%v", one.Names, two.Names)
	}
	for _, c := range []struct {
		what string
		a, b any
	}{{"gpu", one.GPU, two.GPU}, {"cpu", one.CPU, two.CPU}, {"shapes", one.Shapes, two.Shapes}, {"file", one.Files[0], two.Files[0]}} {
		if fmt.Sprint(c.a) != fmt.Sprint(c.b) {
			t.Errorf("%s differ:\n%v\n%v", c.what, c.a, c.b)
		}
	}
}

// A damaged or forged block is refused with an error and leaves the store
// as it was: never a panic, never a record with a name id out of range.
func FuzzMerge(f *testing.F) {
	data, cut := blockTrace(40)
	b := NewBlockReader(limits.Limits{}, int64(cut), false)
	b.Write(data[cut:])
	enc := b.AppendBlock(nil)
	f.Add(enc)
	f.Add(enc[:len(enc)/2])
	f.Add([]byte(blockMagic))
	f.Fuzz(func(t *testing.T, enc []byte) {
		s := NewStore()
		r := s.NewReader("t.json")
		r.Write(data[:cut])
		gpu, names := len(s.GPU), len(s.Names)
		if err := r.Merge(enc); err != nil {
			if len(s.GPU) != gpu || len(s.Names) != names {
				t.Fatalf("a refused block changed the store: %d -> %d ops, %d -> %d names", gpu, len(s.GPU), names, len(s.Names))
			}
			return
		}
		for _, o := range s.GPU {
			if int(o.Name) >= len(s.Names) || int(o.Track) >= len(s.Names) {
				t.Fatalf("name id out of range: %+v", o)
			}
		}
		r.Close()
	})
}

// A folder's files read one after the other into one store, each with its
// size hint: the record slices stay near the records kept (the hint used to
// extrapolate every earlier file's records from the current file's bytes).
func TestFolderGrowthBounded(t *testing.T) {
	data, _ := blockTrace(40000) // ≈ 11 MB: past hintAfter
	s := NewStore()
	for f := 0; f < 6; f++ {
		r := s.NewReader(fmt.Sprintf("rank%d.json", f))
		r.SizeHint(int64(len(data)))
		for p := data; len(p) > 0; {
			n := min(len(p), 1<<16)
			r.Write(p[:n])
			p = p[n:]
		}
		r.Close()
	}
	for _, c := range []struct {
		what     string
		len, cap int
	}{{"GPU", len(s.GPU), cap(s.GPU)}, {"CPU", len(s.CPU), cap(s.CPU)}, {"Shapes", len(s.Shapes), cap(s.Shapes)}} {
		if c.len != 6*40000 || float64(c.cap) > 1.5*float64(c.len) {
			t.Errorf("%s: %d records in a capacity of %d", c.what, c.len, c.cap)
		}
	}
}

// With the bytes of the files still to come (RestHint), a folder's shared
// record slices are grown for all its files while the first is read, and
// not copied again for each later file.
func TestFolderRestHintGrowsOnce(t *testing.T) {
	data, _ := blockTrace(40000) // ≈ 11 MB: past hintAfter
	const files = 3
	s := NewStore()
	var first *Span
	for f := 0; f < files; f++ {
		r := s.NewReader(fmt.Sprintf("rank%d.json", f))
		r.SizeHint(int64(len(data)))
		r.RestHint(int64((files - 1 - f) * len(data)))
		for p := data; len(p) > 0; {
			n := min(len(p), 1<<16)
			r.Write(p[:n])
			p = p[n:]
		}
		r.Close()
		if f == 0 {
			first = &s.CPU[0]
		}
	}
	if &s.CPU[0] != first {
		t.Error("the CPU records were copied after the first file")
	}
	for _, c := range []struct {
		what     string
		len, cap int
	}{{"GPU", len(s.GPU), cap(s.GPU)}, {"CPU", len(s.CPU), cap(s.CPU)}, {"Shapes", len(s.Shapes), cap(s.Shapes)}} {
		if c.len != files*40000 || float64(c.cap) > 1.2*float64(c.len) {
			t.Errorf("%s: %d records in a capacity of %d", c.what, c.len, c.cap)
		}
	}
}
