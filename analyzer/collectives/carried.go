package collectives

import (
	"cmp"
	"slices"
)

// Delays carried across process groups. In a TP × DP mesh a rank belongs
// to several groups, and a delay one group's collective took on carries to
// the rank's next collective in another group: its DP partner waits at the
// next all-reduce for the rank its TP peer held up at a broadcast (the
// fifth blind set, tools/plantstraggler5: a 2 ms host pause at a TP pair's
// broadcast named only at the DP all-reduce after it). carriedFrom follows
// the instance's own ranks first; where those differ from the rank's
// previous collective's, the rank's own previous instance is the one its
// lateness may come from (acrossGroups).

// prevsByRank links every instance to each rank's previous instance (any
// group or kind), by that rank's kernel start.
func (res *Result) prevsByRank() {
	res.prevOf = map[*Instance]map[int]*Instance{}
	type at struct {
		in    *Instance
		start US
	}
	by := map[int][]at{}
	for i := range res.Instances {
		in := &res.Instances[i]
		for _, r := range in.Ranks {
			by[r.Rank] = append(by[r.Rank], at{in, r.Start})
		}
	}
	for r, ins := range by {
		slices.SortStableFunc(ins, func(a, b at) int { return cmp.Compare(a.start, b.start) })
		for i := 1; i < len(ins); i++ {
			m := res.prevOf[ins[i].in]
			if m == nil {
				m = map[int]*Instance{}
				res.prevOf[ins[i].in] = m
			}
			m[r] = ins[i-1].in
		}
	}
}

// acrossGroups is the instance in's lateness was carried from when the
// last rank's previous collective was another group's: walking back its
// own collectives within the step, the first where it was last by at least
// three quarters of in's skew (the delay arose there), or where it waited
// that long (it was held by that instance's last rank, and came late here
// with it); nil where it waited more than a quarter of in's skew before
// (it caught up), or, where it was last, when its own time to reach in
// explains half of it or it was no later than usual there (late by habit).
func (res *Result) acrossGroups(in *Instance) *Instance {
	r := in.LastRank
	x := res.prevOf[in][r]
	if x == nil || rankKey(x) == rankKey(in) {
		return nil
	}
	for n := 0; x != nil && x.Step == in.Step && n < usualWindow; n++ {
		var wait US
		for _, t := range x.Ranks {
			if t.Rank == r {
				wait = t.Wait
			}
		}
		switch {
		case 4*wait >= 3*in.Skew:
			// held there: its issue gap since holds the wait, not its own time
			return x
		case x.LastRank == r && 4*x.Skew >= 3*in.Skew:
			if x.Excess != nil && x.beyond() <= 0 || 2*res.own(in) >= int64(in.Skew) {
				return nil
			}
			return x
		case 4*wait > in.Skew:
			return nil
		}
		x = res.prevOf[x][r]
	}
	return nil
}

// heldElsewhere: in's last rank came late because another rank held it — at
// its previous collective of another group in the step it waited at least ¾
// of in's skew (acrossGroups' held case). Its lateness is that group's
// straggler's, named there, not a stall of its own (the sixth blind set,
// tools/plantstraggler6: one all_to_all group of a mesh slowed by a longer
// kernel on rank 5, and rank 7, held there, last at the global all-reduce).
func (res *Result) heldElsewhere(in *Instance) bool {
	x := res.acrossGroups(in)
	if x == nil || x.LastRank == in.LastRank {
		return false
	}
	for _, t := range x.Ranks {
		if t.Rank == in.LastRank {
			return 4*t.Wait >= 3*in.Skew
		}
	}
	return false
}
