package collectives

import (
	"math"
	"math/rand/v2"
	"testing"
)

// medianBut and minBut answer what a median and a minimum over every
// rank's peers did, whatever the values: ties, int64's ends, one or two.
func TestMedianButMinBut(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pool := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 7, 7, 4e18, -4e18}
	for trial := range 3000 {
		n := 1 + trial%9
		v := make([]int64, n)
		for i := range v {
			if rng.IntN(2) == 0 {
				v[i] = pool[rng.IntN(len(pool))]
			} else {
				v[i] = rng.Int64N(20) - 10
			}
		}
		med := newMedianBut(v, nil)
		lo := minBut(v)
		for r := range v {
			var peers []int64
			want := int64(math.MaxInt64)
			for q := range v {
				if q != r {
					peers = append(peers, v[q])
					want = min(want, v[q])
				}
			}
			if got, w := med.of(v[r]), medianInt(peers); got != w {
				t.Fatalf("median of %v without [%d]: %d, want %d", v, r, got, w)
			}
			if got := lo(r); got != want {
				t.Fatalf("min of %v without [%d]: %d, want %d", v, r, got, want)
			}
		}
	}
}
