package roofline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/units"
)

// head is a row's identity: its stage, op and signature.
func (a *analysis) head(r *rowAcc, stage string) Row {
	s := a.sigs[r.sig]
	return Row{Stage: stage, Op: a.st.Name(r.key.name), InputDims: s.rawDims, InputTypes: s.types, ConcreteInputs: s.concrete,
		KernelTime: r.kernelTime}
}

// count is the row's instances.
func (r *rowAcc) count() int64 { return r.instances + units.Trunc(math.Round(r.instF)) }

// finishRows turns the accumulators into res.Rows, sorted by stage, then
// time, and keeps each stage's max-1 largest rows: the rest are summed into
// one OtherOps row at the stage's end. The order and the cut are decided on
// the accumulators, and only kept rows are finished into a Row (≈ 370 B
// and its kernels): a row past the cut is finished, added to its stage's
// totals (which cover every row) and let go, as is each accumulator once
// finished. 200 k distinct op names held 200 k finished rows at once.
func (a *analysis) finishRows(rows []*rowAcc, names []string, res *Result, opt Options, max int) {
	// The rows in output order: stage, time, then op and signature.
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		x, y := rows[i], rows[j]
		if x.key.stage != y.key.stage {
			xs, ys := names[x.key.stage], names[y.key.stage]
			if d := callsite.Rank(xs) - callsite.Rank(ys); d != 0 {
				return d
			}
			if c := strings.Compare(xs, ys); c != 0 {
				return c
			}
		}
		if x.kernelTime != y.kernelTime {
			return cmp.Compare(y.kernelTime, x.kernelTime)
		}
		if c := strings.Compare(a.st.Name(x.key.name), a.st.Name(y.key.name)); c != 0 {
			return c
		}
		sx, sy := a.sigs[x.sig], a.sigs[y.sig]
		if c := strings.Compare(string(sx.rawDims), string(sy.rawDims)); c != 0 {
			return c
		}
		if c := slices.Compare(sx.types, sy.types); c != 0 {
			return c
		}
		return slices.Compare(sx.concrete, sy.concrete)
	})
	// slot[n] is row n's place in res.Rows, -1 past its stage's cut; each
	// stage over max ends with its OtherOps row.
	slot := make([]int32, len(rows))
	var others []Row
	var otherAt []int32
	n := int32(0)
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && rows[order[j]].key.stage == rows[order[i]].key.stage {
			j++
		}
		keep := j - i
		if keep > max {
			keep = max - 1
		}
		for k := i; k < j; k++ {
			slot[order[k]] = -1
			if k < i+keep {
				slot[order[k]] = n
				n++
			}
		}
		if keep < j-i {
			other := Row{Stage: names[rows[order[i]].key.stage], Op: OtherOps, Merged: j - i - keep}
			for _, r := range order[i+keep : j] {
				other.Instances = units.AddSat(other.Instances, rows[r].count())
				other.KernelTime = units.AddSat(other.KernelTime, rows[r].kernelTime)
			}
			other.Note = fmt.Sprintf("%d rows past the %d largest of this stage (limits.OpRows), summed: not modelled", other.Merged, max-1)
			res.MergedRows += other.Merged
			others, otherAt = append(others, other), append(otherAt, n)
			n++
		}
		i = j
	}
	res.Rows = make([]Row, n)
	stageAt := map[string]*StageTotals{}
	for i := range res.Stages {
		stageAt[res.Stages[i].Stage] = &res.Stages[i]
	}
	why := map[*StageTotals]*[2]bool{}
	// In the order the rows were made: the stages' float sums add up as
	// they always did.
	for rn, r := range rows {
		x := a.finish(int32(rn), r, names[r.key.stage], res)
		project(&x, r.flops, r.bytes, res.Target, opt.Arch)
		rows[rn] = nil
		if s := stageAt[x.Stage]; s != nil && x.Modelled {
			s.TargetBound += x.TargetBound
			isa, fp4 := strings.Contains(x.TargetNote, "_ISA"), strings.Contains(x.TargetNote, "dequantized")
			if isa || fp4 {
				x.ISASpecific = true
				s.ISASpecific += units.Trunc(float64(x.KernelTime) * x.Coverage)
				w := why[s]
				if w == nil {
					w = new([2]bool)
					why[s] = w
				}
				w[0], w[1] = w[0] || isa, w[1] || fp4
			}
		}
		if k := slot[rn]; k >= 0 {
			res.Rows[k] = x
		}
	}
	for s, w := range why {
		for i, text := range []string{"ISA-tagged library solutions", "software MXFP4 dequantization"} {
			if w[i] {
				if s.ISAWhy != "" {
					s.ISAWhy += ", "
				}
				s.ISAWhy += text
			}
		}
	}
	for k, at := range otherAt {
		res.Rows[at] = others[k]
	}
}
