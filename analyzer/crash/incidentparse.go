package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// incidentParser collects the per-rank facts a culprit is computed from:
// watchdog SeqNums and last enqueued / completed work per rank, "dump
// signal … from rank N", NCCL_DEBUG=INFO opCounts per process, the torchrun
// "Root Cause" entry and SIGTERM'd siblings, rocm-smi GPU use, and pid ↔
// rank pairs from line prefixes.
type incidentParser struct {
	s        *Session
	rootLine int // "Root Cause (first observed failure):"
	rootHost string
}

var (
	reIncSeq      = lazyre.New(`WorkNCCL\(SeqNum=(\d+), OpType=(\w+)`)
	reIncEnq      = lazyre.New(`(?i)last enqueued (?:\w+ )?work: (-?\d+), last completed (?:\w+ )?work: (-?\d+)`)
	reIncDumpFrom = lazyre.New(`dump signal due to a collective timeout from\s+(this local rank|rank\s+(\d+))`)
	reIncInit     = lazyre.New(`^(\S+):(\d+):\d+ \[(\d+)\] NCCL INFO .*?\bcomm 0x[0-9a-fA-F]+ rank (\d+) nranks (\d+)`)
	reIncSigterm  = lazyre.New(`Sending process (\d+) closing signal SIGTERM`)
	reIncSMI      = lazyre.New(`^(GPU\[\d+\])\s*:\s*GPU use \(%\)\s*:\s*(\d+)`)
	// torchrun's rendezvous result prints "global_world_sizes=[4, 4, 4, 4]"
	// (one entry per local worker, each the world size)
	// Megatron-LM prints "using world size: 8, data-parallel size: 8, …" and
	// its arguments block "  world_size ........ 8" (NVIDIA/Megatron-LM
	// arguments.py; Pai-Megatron-Patch and Megatron MoE run logs)
	reIncWorld     = lazyre.New(`\b(?:world_size|WORLD_SIZE|tp_size|tensor_parallel_size)\s*[=:]\s*(\d+)|\bin world size (\d+)|\bglobal_world_sizes=\[(\d+)|\busing world size: (\d+)|^\s*world_size \.+ (\d+)\s*$`)
	reIncPyspyPID  = lazyre.New(`Pyspy dump for PID (\d+)`)
	reIncPGRankTag = lazyre.New(`\bRank (\d+)\]`)
)

func (p *incidentParser) beginFile(*Session) { p.rootLine, p.rootHost = 0, "" }
func (p *incidentParser) endFile()           {}
func (p *incidentParser) gate() uint64       { return kwIncident | kwIncidentRaw }
func (p *incidentParser) active(int) bool    { return false }
func (p *incidentParser) stateless()         {}

func (p *incidentParser) line(l *line) {
	t := l.text
	s := p.s
	inc := &s.b.facts.inc
	if (inc.cuda.inRows || strings.Contains(t, "Virtual PC") || strings.Contains(t, "Active")) && p.cudaLine(l) {
		return
	}
	if l.pid > 0 && l.rank >= 0 {
		inc.mapPID(l.pid, l.rank)
	}
	if l.rank >= 0 && l.rank < maxRanks && l.rank+1 > inc.ranksSeen {
		inc.ranksSeen = l.rank + 1 // ranks that exist even if they never report
	}
	rank := l.rank
	if r := submatchIf(t, "Rank ", reIncPGRankTag); r != "" {
		rank = atoiDef(r, rank)
	}
	switch {
	case strings.Contains(t, "SeqNum="):
		if m := reIncSeq.FindStringSubmatch(t); m != nil && rank >= 0 && strings.Contains(t, "imeout") {
			st := inc.rank(rank)
			if !st.hasSeq {
				st.seq, st.hasSeq, st.op, st.ev = atoiDef(m[1], -1), true, m[2], l.ev(s)
			}
		}
	case containsFoldASCII(t, "last enqueued"):
		if m := reIncEnq.FindStringSubmatch(t); m != nil && rank >= 0 {
			st := inc.rank(rank)
			st.enq, st.comp, st.hasEnq = atoiDef(m[1], -1), atoiDef(m[2], -1), true
			if st.ev.File == "" {
				st.ev = l.ev(s)
			}
		}
		if m := reIncDumpFrom.FindStringSubmatch(t); m != nil {
			from := rank
			if m[2] != "" {
				from = atoiDef(m[2], -1)
			}
			if from >= 0 && !containsInt(inc.dumpFrom, from) && len(inc.dumpFrom) < 64 {
				inc.dumpFrom = append(inc.dumpFrom, from)
				if inc.dumpFromEv == nil {
					ev := l.ev(s)
					inc.dumpFromEv = &ev
				}
			}
		}
	case strings.Contains(t, "opCount"):
		if c, ok := extractNCCLColl(t); ok {
			key := c.host + ":" + strconv.Itoa(c.pid)
			if inc.ops == nil {
				inc.ops = map[string]*opState{}
			}
			o := inc.ops[key]
			if o == nil {
				if len(inc.ops) >= maxRanks {
					return
				}
				o = &opState{host: c.host, pid: c.pid, dev: c.dev, rank: -1, last: -1}
				inc.ops[key] = o
			}
			ev := l.ev(s)
			if c.opCount >= o.last {
				o.last, o.op, o.ev = c.opCount, c.op, ev
			}
			if c.nranks > inc.worldSize {
				inc.worldSize = c.nranks
			}
			inc.noteColl(c, l.rank, ev)
			s.format("nccl_debug")
		}
	case strings.Contains(t, "nranks"):
		if m := reIncInit.FindStringSubmatch(t); m != nil {
			pid, r := atoiDef(m[2], 0), atoiDef(m[4], -1)
			inc.mapPID(pid, r)
			if inc.pidHost == nil {
				inc.pidHost = map[int]string{}
			}
			if len(inc.pidHost) < maxRanks {
				inc.pidHost[pid] = m[1]
			}
			if n := atoiDef(m[5], 0); n > inc.worldSize {
				inc.worldSize = n
				ev := l.ev(s)
				inc.wsEv = &ev
			}
		}
	case strings.Contains(t, "Root Cause"):
		p.rootLine = l.no
		if inc.rootEv == nil {
			inc.rootRank = -1
		}
	case p.rootLine > 0 && l.no-p.rootLine <= 10 && containsAny(t, "rank", "exitcode", "host"):
		// the root-cause entry's rows (extractElasticRows, nccl.go)
		for _, r := range extractElasticRows(t) {
			if inc.rootEv != nil {
				break
			}
			switch r.field {
			case "rank":
				inc.rootRank = r.a
			case "host":
				p.rootHost = r.host
			case "exitcode":
				if r.b <= 0 {
					continue
				}
				inc.rootPID, inc.rootExit = r.b, r.a
				ev := l.ev(s)
				inc.rootEv = &ev
				inc.mapPID(inc.rootPID, inc.rootRank)
				if p.rootHost != "" {
					inc.hostOf(inc.rootPID, p.rootHost)
				}
			}
		}
	case strings.Contains(t, "closing signal"):
		if m := reIncSigterm.FindStringSubmatch(t); m != nil && len(inc.sigterm) < 256 {
			inc.sigterm = append(inc.sigterm, atoiDef(m[1], 0))
		}
	case strings.Contains(t, "GPU use"):
		if m := reIncSMI.FindStringSubmatch(t); m != nil {
			s.format("rocm_smi")
			if atoiDef(m[2], 0) >= 99 && len(inc.smiBusy) < 64 {
				inc.smiBusy = append(inc.smiBusy, m[1]+" "+m[2]+"%")
				if len(inc.smiEv) < 4 {
					inc.smiEv = append(inc.smiEv, l.ev(s))
				}
			}
		}
	case strings.Contains(t, "Pyspy dump for PID"):
		if m := reIncPyspyPID.FindStringSubmatch(t); m != nil {
			inc.mapPID(atoiDef(m[1], 0), l.rank)
		}
	}
	if containsAny(t, progressKeywords...) {
		if f, ok := extractProgress(t); ok {
			s.noteProgress(l, f)
		}
	}
	if containsAny(t, trainStepKeywords...) {
		if st, ok := extractTrainStep(t); ok {
			s.noteTrainStep(l, st)
		}
	}
	if containsAny(t, "world_size", "WORLD_SIZE", "tp_size", "tensor_parallel_size", "world size") {
		m := reIncWorld.FindStringSubmatch(t)
		n := 0
		if m != nil {
			n = atoiDef(m[1]+m[2]+m[3]+m[4]+m[5], 0)
		}
		if n > 0 && n <= maxRanks && inc.worldSize == 0 {
			inc.worldSize = n
			ev := l.ev(s)
			inc.wsEv = &ev
		}
	}
}

func (inc *incidentFacts) hostOf(pid int, host string) {
	if inc.pidHost == nil {
		inc.pidHost = map[int]string{}
	}
	if _, ok := inc.pidHost[pid]; !ok && len(inc.pidHost) < maxRanks {
		inc.pidHost[pid] = host
	}
}
