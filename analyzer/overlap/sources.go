package overlap

// srcTable numbers the sources kernels are attributed to. A source is kept
// as five ids in one pool of strings (20 B, each distinct string once)
// rather than five string headers (80 B) in a slice and again as a map
// key: with one source per op (200 k distinct op names or Python frames)
// the sources were most of the analysis' memory, twice over (the joiner
// kept its own numbering too).
type srcTable struct {
	keys   []srcKey
	idx    map[srcKey]int32
	strs   []string
	strIdx map[string]uint32
}

// srcKey is a source's LaunchOp, OpChain, Annot, Scope and Chain ids.
type srcKey [5]uint32

// newSrcTable returns a table whose number 0 is the empty source.
func newSrcTable() *srcTable {
	return &srcTable{keys: []srcKey{{}}, idx: map[srcKey]int32{{}: 0}, strs: []string{""}, strIdx: map[string]uint32{"": 0}}
}

func (t *srcTable) str(s string) uint32 {
	id, ok := t.strIdx[s]
	if !ok {
		id = uint32(len(t.strs))
		t.strs = append(t.strs, s)
		t.strIdx[s] = id
	}
	return id
}

// intern returns the number of s, numbering it if new.
func (t *srcTable) intern(s source) int32 {
	k := srcKey{t.str(s.LaunchOp), t.str(s.OpChain), t.str(s.Annot), t.str(s.Scope), t.str(s.Chain)}
	if p, ok := t.idx[k]; ok {
		return p
	}
	p := int32(len(t.keys))
	t.keys = append(t.keys, k)
	t.idx[k] = p
	return p
}

// get returns source number p.
func (t *srcTable) get(p int32) source {
	k := &t.keys[p]
	return source{LaunchOp: t.strs[k[0]], OpChain: t.strs[k[1]], Annot: t.strs[k[2]], Scope: t.strs[k[3]], Chain: t.strs[k[4]]}
}

// mapped is get(p).mapped() and scoped get(p).Scope != "", without the
// copy (per op in the rows' loop).
func (t *srcTable) mapped(p int32) bool { return t.keys[p][0] != 0 || t.keys[p][3] != 0 }
func (t *srcTable) scoped(p int32) bool { return t.keys[p][3] != 0 }
