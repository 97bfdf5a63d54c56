package collectives

// Shifts is how far each rank of sums's own times move onto the
// common clock of res (Match(sums)): its clock base past the lowest (when every rank
// has one, as collectives' onClock does) less its aligned clock offset.
func Shifts(sums []*Summary, res *Result) map[int]int64 {
	lo, all := int64(0), true
	for i, s := range sums {
		all = all && s.ClockBase != 0
		if i == 0 || s.ClockBase < lo {
			lo = s.ClockBase
		}
	}
	d := map[int]int64{}
	for _, s := range sums {
		if all {
			d[s.Rank] = s.ClockBase - lo
		}
	}
	for _, r := range res.Ranks {
		if r.ClockAligned && r.ClockOffset != nil {
			d[r.Rank] -= int64(*r.ClockOffset)
		}
	}
	return d
}
