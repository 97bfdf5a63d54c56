package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Training progress as a fact (extractor → fact → the py-spy hang rules'
// defeater). A trainer whose step counter keeps rising after a py-spy dump
// was running when the dump was taken: a thread busy in backward, waiting
// on .item() or in an all-reduce is a snapshot of work, not a hang.
// Wordings (a step / iteration counter on a line that reports the loss):
//   - Megatron-LM: " iteration      182/  250000 | consumed samples: … |
//     lm loss: 2.382640E+00 | …" (epfLLM/Megatron-LLM#11);
//   - torchtitan: "[rank0]:[titan] … - root - INFO - step: 22  loss:
//     6.2250  memory: …" (pytorch/torchtitan#950, #1287, #3393);
//   - a plain loop's "step 4410 | loss 2.0412 | 3.91 s/step".
// Steps that rise only before the dump say nothing: a hung trainer printed
// rising steps until it hung.

var reTrainStep = lazyre.New(`(?i)\b(?:global[_ ]step|step|iteration|iter)\b\s*[:=#]?\s*(\d+)`)

// trainStep: one progress line — its counter, and the text before the
// counter (digits masked, spaces folded) that tells one series from another.
type trainStep struct {
	step   int64
	series string
}

func extractTrainStep(t string) (trainStep, bool) {
	if !strings.Contains(strings.ToLower(t), "loss") {
		return trainStep{}, false
	}
	loc := reTrainStep.FindStringSubmatchIndex(t)
	if loc == nil {
		return trainStep{}, false
	}
	n := atoiDef(t[loc[2]:loc[3]], -1)
	if n < 0 {
		return trainStep{}, false
	}
	series := strings.Join(strings.Fields(reDigits.ReplaceAllString(strings.ToLower(t[:loc[2]]), "#")), " ")
	return trainStep{step: int64(n), series: series}, true
}

// stepFacts: the last counter of each series (bounded) and the last line at
// which a counter rose, per input file.
type stepFacts struct {
	last map[string]int64
	rose map[int]int // file index → line number of the last rise
}

// noteTrainStep records a progress line; a counter above the previous one
// of its series is a rise.
func (s *Session) noteTrainStep(l *line, st trainStep) {
	f := &s.b.facts.steps
	if f.last == nil {
		f.last, f.rose = map[string]int64{}, map[int]int{}
	}
	key := st.series
	prev, ok := f.last[key]
	if ok && st.step > prev {
		f.rose[l.file] = l.no
	}
	if ok || len(f.last) < 32 {
		f.last[key] = st.step
	}
}

// stepsRoseAfter: a step counter of the same file rose on a line after l —
// the process trained on after that point.
func (s *Session) stepsRoseAfter(l *line) bool {
	n, ok := s.b.facts.steps.rose[l.file]
	return ok && n > l.no
}

// trainStepKeywords feed the incident parser's prefilter bit.
var trainStepKeywords = []string{"loss", "Loss", "LOSS"}

// hangSnapshotRanOn: a GPU-hang finding all of whose evidence lines are
// followed, in their files, by a rising step counter rests on a snapshot of
// a process that trained on — a SIGQUIT wave dump or a rocgdb attach taken
// on purpose shows (running) waves and in-flight dispatches of a healthy
// run too. A hung trainer prints no further steps.
func (b *builder) hangSnapshotRanOn(s *Session, work map[string]*agg) {
	a := work[ClassGPUKernelHang]
	if a == nil || len(a.evFirst)+len(a.evLast) == 0 || len(b.facts.steps.rose) == 0 {
		return
	}
	for _, e := range append(append([]Evidence(nil), a.evFirst...), a.evLast...) {
		ran := false
		for i := range s.files {
			if s.fileName(i) == e.File {
				if n, ok := b.facts.steps.rose[i]; ok && n > e.Line {
					ran = true
				}
			}
		}
		if !ran {
			return
		}
	}
	delete(work, ClassGPUKernelHang)
}
