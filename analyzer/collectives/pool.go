package collectives

// Bounds over too few instances. byWork bounds each measure (extra GPU
// work, GPU delay, host time) by its spread over one group of ranks. A
// group with few collectives — a DP pair of a TP × DP mesh, one all-reduce
// per step — would bound it by its own few differences: with one instance
// of two ranks they are the planted difference itself and its negative
// (x and −x: the MAD is |x|, the bound 10 × 1.48 × |x|), so nothing there
// could ever stand out. The noise of these measures is the job's ranks',
// not one group's (DLRM 8 × V100: ≤ 216 µs of GPU work between any two
// ranks), so a group of fewer than usualMin instances takes the bound of
// every group's differences pooled. A job of one group is unchanged.
func poolBounds(es []*extras, sizes []int) {
	var all []int64
	for _, e := range es {
		for _, row := range e.x {
			all = append(all, row...)
		}
	}
	if len(all) == 0 {
		return
	}
	m, thr := spread(all, workSigmas, workP90)
	for i, e := range es {
		if sizes[i] < usualMin {
			e.m, e.thr = m, thr
		}
	}
}
