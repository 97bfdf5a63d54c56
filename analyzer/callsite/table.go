package callsite

// Table numbers distinct two-word integer keys 0, 1, 2, … in the order they
// are first seen: a hash set whose hash is two multiplications. Analyses
// keep their values in slices indexed by the number. Go's maps hash
// struct, array and string keys with a runtime call per lookup (and the
// wasm build has no AES hash), which made per-GPU-op map updates the
// largest cost of finish() in the module; integer ids from the store's
// interned names fit in a word or two.
type Table struct {
	keys  []TableKey // by number
	slots []int32    // number+1 by hash slot, 0 = empty
	shift uint
}

// TableKey is a key of a Table.
type TableKey struct{ A, B uint64 }

// NewTable returns a table sized for about n keys.
func NewTable(n int) *Table {
	t := &Table{}
	t.init(max(n, 8))
	return t
}

func (t *Table) init(n int) {
	size, bits := 16, uint(4)
	for size < 2*n {
		size, bits = size*2, bits+1
	}
	t.slots = make([]int32, size)
	t.shift = 64 - bits
	if t.keys == nil {
		t.keys = make([]TableKey, 0, n)
	}
}

func (t *Table) slot(a, b uint64) uint64 {
	h := a*0x9E3779B97F4A7C15 ^ (b+0x632BE59BD9B4E019)*0xC2B2AE3D27D4EB4F
	return (h ^ h>>29) * 0xBF58476D1CE4E5B9 >> t.shift
}

// Index returns the number of key (a, b), numbering it if new (added).
func (t *Table) Index(a, b uint64) (n int32, added bool) {
	mask := uint64(len(t.slots) - 1)
	for s := t.slot(a, b); ; s = (s + 1) & mask {
		v := t.slots[s]
		if v == 0 {
			break
		}
		if k := &t.keys[v-1]; k.A == a && k.B == b {
			return v - 1, false
		}
	}
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.init(len(t.slots))
		for i, k := range t.keys {
			t.put(k.A, k.B, int32(i))
		}
	}
	n = int32(len(t.keys))
	t.keys = append(t.keys, TableKey{a, b})
	t.put(a, b, n)
	return n, true
}

func (t *Table) put(a, b uint64, n int32) {
	mask := uint64(len(t.slots) - 1)
	s := t.slot(a, b)
	for t.slots[s] != 0 {
		s = (s + 1) & mask
	}
	t.slots[s] = n + 1
}

// Find returns the number of key (a, b), or -1.
func (t *Table) Find(a, b uint64) int32 {
	mask := uint64(len(t.slots) - 1)
	for s := t.slot(a, b); ; s = (s + 1) & mask {
		v := t.slots[s]
		if v == 0 {
			return -1
		}
		if k := &t.keys[v-1]; k.A == a && k.B == b {
			return v - 1
		}
	}
}

// Len returns how many keys are numbered.
func (t *Table) Len() int { return len(t.keys) }

// Key returns the key numbered n.
func (t *Table) Key(n int32) TableKey { return t.keys[n] }
