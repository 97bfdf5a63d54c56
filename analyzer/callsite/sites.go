package callsite

import "github.com/gputriage/gputriage/analyzer/trace"

// Sites chooses the Python call site of a launch: among the meaningful
// frames active at a time on a thread, the best Score (one point less per
// frame outward). Launches under the same innermost frame share its stack,
// so the choice is made once per innermost frame; short locations are
// interned once per frame name.
type Sites struct {
	st *trace.Store
	j  *Joins
	// at numbers the innermost frames (Python span index) seen; atLoc is
	// the location chosen for each.
	at    *Table
	atLoc []uint32
	cur   Cursor
	loc   map[uint32]uint32 // frame name id → short location name id (0 = not meaningful)
	base  map[uint32]int    // location name id → Score at depth 0
}

// NewSites chooses call sites from j's Python nesting.
func NewSites(j *Joins) *Sites {
	return &Sites{st: j.St, j: j, at: NewTable(64), loc: map[uint32]uint32{}, base: map[uint32]int{}}
}

// At returns the interned call site active at t on the thread, or 0.
func (s *Sites) At(file uint16, track uint32, t int64) uint32 {
	if len(s.st.Python) == 0 {
		return 0
	}
	n := s.j.PythonNest(file, track)
	p := s.cur.At(n, s.st.Python, t)
	if p < 0 {
		return 0
	}
	inner := n.Pos[p]
	k, added := s.at.Index(uint64(inner), 0)
	if !added {
		return s.atLoc[k]
	}
	var best uint32
	bestScore, depth := -1<<31, 0
	for ; p >= 0; p = n.Parent[p] {
		f := &s.st.Python[n.Pos[p]]
		if f.End() < t {
			continue
		}
		loc, ok := s.loc[f.Name]
		if !ok {
			if name := s.st.Name(f.Name); Meaningful(name) {
				loc = s.st.Intern(Short(name))
			}
			s.loc[f.Name] = loc
		}
		if loc == 0 {
			continue
		}
		base, ok := s.base[loc]
		if !ok {
			base = Score(s.st.Name(loc), 0)
			s.base[loc] = base
		}
		if sc := base - depth; sc > bestScore {
			best, bestScore = loc, sc
		}
		depth++
	}
	s.atLoc = append(s.atLoc, best)
	return best
}
