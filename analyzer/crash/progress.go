package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Serving progress as a fact (extractor → fact → the livelock rule's
// defeater). A server whose log shows tokens being generated is busy, not
// hung, however busy rocm-smi / nvidia-smi says the GPUs are. Wordings:
//   - vLLM's periodic stats, V0 ("INFO 01-22 18:27:20 metrics.py:449] Avg
//     prompt throughput: 0.0 tokens/s, Avg generation throughput: 41.7
//     tokens/s, Running: 1 reqs …", vllm#12314) and V1 ("Engine 000: Avg
//     prompt throughput: …, Avg generation throughput: 1055.3 tokens/s,
//     Running: 18 reqs …", vllm#43295, vllm#19680);
//   - SGLang's decode batch line ("Decode batch. #running-req: 509,
//     #token: 180776, token usage: 0.43, gen throughput (token/s): 7897.87",
//     sglang#4407; the newer "Decode batch, … cuda graph: True, gen
//     throughput (token/s): 144.95", sglang#22331);
//   - vLLM's offline progress bar ("Processed prompts: 100%|…| est. speed
//     input: 512.31 toks/s, output: 1630.11 toks/s");
//   - a cumulative token counter ("…, 256 reqs, 31744 tokens") that rises
//     between two lines of one shape.
// A throughput of 0 is no progress (a stalled server prints exactly that).

var (
	reGenThroughput = lazyre.New(`(?:Avg generation throughput:\s*|gen throughput \(token/s\):\s*|\boutput:\s*)([0-9]+(?:\.[0-9]+)?)(?:\s*(?:tokens?|toks)/s)?`)
	reTokenCounter  = lazyre.New(`\b(\d+) tokens\b`)
	reDigits        = lazyre.New(`\d+`)
)

// progressFact: the line shows generation going on (rate > 0), or carries a
// counter a later line of the same shape can be compared with.
type progressFact struct {
	rate    float64 // tokens/s, from a throughput field
	counter int64   // a cumulative "N tokens" count
	shape   string  // the line with its digits masked (for counters)
}

func extractProgress(t string) (progressFact, bool) {
	if containsAny(t, "generation throughput", "gen throughput", "toks/s") {
		m := reGenThroughput.FindStringSubmatch(t)
		if m != nil && (strings.Contains(t, "throughput") || strings.Contains(t, "toks/s")) {
			v, err := strconv.ParseFloat(m[1], 64)
			if err == nil {
				return progressFact{rate: v}, true
			}
		}
	}
	if strings.Contains(t, " tokens") && !strings.Contains(t, "tokens/s") {
		if m := reTokenCounter.FindStringSubmatch(t); m != nil {
			v, err := strconv.ParseInt(m[1], 10, 64)
			if err == nil {
				return progressFact{counter: v, shape: reDigits.ReplaceAllString(t, "#")}, true
			}
		}
	}
	return progressFact{}, false
}

// progressFacts: the first line that proves progress, and the last counter
// of each line shape (bounded).
type progressFacts struct {
	ev       *Evidence
	counters map[string]int64
	lastRate float64 // the latest throughput printed (a stall ends on 0)
	hasRate  bool
}

// serving: the latest throughput the log printed is above 0 — the server
// was generating when the log ends (a stalled one prints 0.0 tokens/s).
func (f *progressFacts) serving() bool { return f.hasRate && f.lastRate > 0 }

// noteProgress keeps the proof: a positive rate, or a counter above the
// previous one of the same shape.
func (s *Session) noteProgress(l *line, p progressFact) {
	f := &s.b.facts.progress
	if p.shape == "" {
		f.lastRate, f.hasRate = p.rate, true
	}
	if f.ev != nil {
		return
	}
	proof := p.rate > 0
	if p.shape != "" {
		if f.counters == nil {
			f.counters = map[string]int64{}
		}
		if prev, ok := f.counters[p.shape]; ok && p.counter > prev {
			proof = true
		} else if ok || len(f.counters) < 32 {
			f.counters[p.shape] = p.counter
		}
	}
	if proof {
		ev := l.ev(s)
		f.ev = &ev
	}
}

// progressKeywords feed the incident parser's prefilter bit.
var progressKeywords = []string{"throughput", " tokens", "toks/s"}
