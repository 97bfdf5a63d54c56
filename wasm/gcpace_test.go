package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		live, roots uint64
		want        int
	}{
		{0, 0, 200},         // the runtime's 4 MiB × 200 % = the 8 MiB floor
		{0, 128 << 10, 200}, //
		{1 * mib, 128 << 10, 200},
		{3 * mib, 128 << 10, 160}, // 3 + 3.125 × 1.6 = 8 MiB
		{6 * mib, 128 << 10, 32},
		{7 * mib, 128 << 10, gcMin}, // 25 % of live is above the floor
		{heapFloor, 0, gcMin},
		{1 << 30, 128 << 10, gcMin},
	} {
		got := gcPercentFor(tt.live, tt.roots)
		if got != tt.want {
			t.Errorf("gcPercentFor(%d KiB, %d KiB) = %d, want %d", tt.live>>10, tt.roots>>10, got, tt.want)
		}
		goal := max(heapMinimum*uint64(got)/100, tt.live+(tt.live+tt.roots)*uint64(got)/100)
		if got > gcMin && goal > heapFloor {
			t.Errorf("live %d KiB: heap goal %d KiB above the floor", tt.live>>10, goal>>10)
		}
	}
}
