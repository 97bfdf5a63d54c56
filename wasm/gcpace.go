package main

// Bounds of the module's GC percent (see pace in main.go).
const (
	heapFloor = 8 << 20 // the heap may grow to this before a collection
	gcMin     = 25      // above it, collect at 25 % growth
	gcMax     = 400
	// heapMinimum is the Go runtime's own floor of the heap goal at 100 %;
	// it scales with the percent (4 MiB × percent / 100).
	heapMinimum = 4 << 20
)

// gcPercentFor returns the GC percent that puts the next collection at
// max(heapFloor, live + 25 % of live and roots), within [gcMin, gcMax].
// The Go runtime's heap goal is the larger of heapMinimum × percent / 100
// and live + (live + roots) × percent / 100, roots being the scanned
// globals and stacks.
func gcPercentFor(live, roots uint64) int {
	if live >= heapFloor {
		return gcMin
	}
	p := min(int64(heapFloor-live)*100/int64(max(1, live+roots)), heapFloor*100/heapMinimum)
	return int(max(gcMin, min(gcMax, p)))
}
