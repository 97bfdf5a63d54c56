package crash

import (
	"sort"
	"strconv"
)

func sortStrings(xs []string) { sort.Strings(xs) }

// formatBytes renders a byte count with a binary unit.
func formatBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " " + units[i]
}
