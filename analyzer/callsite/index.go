package callsite

import (
	"cmp"
	"slices"
)

// idIndex maps (file, id) → record index with one sorted slice: 16 bytes per
// entry instead of a map's ~50, which matters at millions of launches.
type idIndex struct{ e []idEntry }

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
	slices.SortStableFunc(x.e, func(a, b idEntry) int {
		if a.file != b.file {
			return int(a.file) - int(b.file)
		}
		return cmp.Compare(a.id, b.id)
	})
	out := x.e[:0]
	for _, v := range x.e {
		if n := len(out); n > 0 && out[n-1].file == v.file && out[n-1].id == v.id {
			if prefer != nil && prefer(out[n-1].idx, v.idx) {
				out[n-1].idx = v.idx
			}
			continue
		}
		out = append(out, v)
	}
	x.e = slices.Clip(out)
}

func (x *idIndex) get(file uint16, id int64) (int32, bool) {
	i, ok := slices.BinarySearchFunc(x.e, idEntry{id: id, file: file}, func(a, b idEntry) int {
		if a.file != b.file {
			return int(a.file) - int(b.file)
		}
		return cmp.Compare(a.id, b.id)
	})
	if !ok {
		return -1, false
	}
	return x.e[i].idx, true
}
