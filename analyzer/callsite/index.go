package callsite

import (
	"cmp"
	"slices"
)

// idIndex maps (file, id) → record index with one sorted slice: 16 bytes per
// entry instead of a map's ~50, which matters at millions of launches.
type idIndex struct {
	e []idEntry
	// dense[file], when its ids are dense enough (correlation and External
	// ids count up from a base): idx[id-lo] is the record or -1. Lookups are
	// then one load instead of ~20 dependent ones, the largest single cost of
	// finish() at a million kernels in the page.
	dense []denseIDs
}

type denseIDs struct {
	lo  int64
	idx []int32 // nil: this file uses the binary search
}

type idEntry struct {
	id   int64
	file uint16
	idx  int32
}

func (x *idIndex) add(file uint16, id int64, idx int32) {
	x.e = append(x.e, idEntry{id, file, idx})
}

// seal sorts the entries; among equal keys the first added wins, unless
// prefer says a later one is better.
func (x *idIndex) seal(prefer func(old, new int32) bool) {
	// Entries arrive in record order (idx ascending), so ordering by idx
	// among equal keys is the stable order; ids mostly arrive sorted, so
	// check before sorting.
	byKey := func(a, b idEntry) int {
		if a.file != b.file {
			return int(a.file) - int(b.file)
		}
		if a.id != b.id {
			return cmp.Compare(a.id, b.id)
		}
		return int(a.idx - b.idx)
	}
	if !entriesSorted(x.e) {
		slices.SortFunc(x.e, byKey)
	}
	out := x.e[:0]
	Chunks(len(x.e), func(lo, hi int) {
		for _, v := range x.e[lo:hi] {
			if n := len(out); n > 0 && out[n-1].file == v.file && out[n-1].id == v.id {
				if prefer != nil && prefer(out[n-1].idx, v.idx) {
					out[n-1].idx = v.idx
				}
				continue
			}
			out = append(out, v)
		}
	})
	x.e = slices.Clip(out)
	x.densify()
}

// entriesSorted is slices.IsSortedFunc(e, byKey) written out: a comparison
// call per entry is what wasm pays most for here.
func entriesSorted(e []idEntry) bool {
	for k := 1; k < len(e); k++ {
		a, b := &e[k-1], &e[k]
		if a.file != b.file {
			if a.file > b.file {
				return false
			}
			continue
		}
		if a.id != b.id {
			if a.id > b.id {
				return false
			}
			continue
		}
		if a.idx > b.idx {
			return false
		}
	}
	return true
}

// densify builds the dense tables of files whose id span is at most about
// twice their entry count (≤ 8 bytes an entry against e's 16), and drops e
// when every file has one.
func (x *idIndex) densify() {
	all := true
	for i := 0; i < len(x.e); {
		j := i
		for j < len(x.e) && x.e[j].file == x.e[i].file {
			j++
		}
		lo, hi, n := x.e[i].id, x.e[j-1].id, int64(j-i)
		if lo < 0 || hi-lo >= 2*n+1024 || hi-lo >= 1<<26 {
			all = false
			i = j
			continue
		}
		f := int(x.e[i].file)
		if f >= len(x.dense) {
			x.dense = append(x.dense, make([]denseIDs, f+1-len(x.dense))...)
		}
		idx := make([]int32, hi-lo+1)
		for k := range idx {
			idx[k] = -1
		}
		Chunks(j-i, func(a, b int) {
			for _, v := range x.e[i+a : i+b] {
				idx[v.id-lo] = v.idx
			}
		})
		x.dense[f] = denseIDs{lo, idx}
		i = j
	}
	if all {
		x.e = nil
	}
}

// get finds (file, id) by binary search, written out: a comparison closure
// per step costs a call each, which wasm pays dearly on every GPU op.
func (x *idIndex) get(file uint16, id int64) (int32, bool) {
	if int(file) < len(x.dense) {
		if d := &x.dense[file]; d.idx != nil {
			if k := uint64(id - d.lo); id >= d.lo && k < uint64(len(d.idx)) {
				v := d.idx[k]
				return v, v >= 0
			}
			return -1, false
		}
	}
	lo, hi := 0, len(x.e)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if e := &x.e[m]; e.file < file || e.file == file && e.id < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(x.e) && x.e[lo].file == file && x.e[lo].id == id {
		return x.e[lo].idx, true
	}
	return -1, false
}
