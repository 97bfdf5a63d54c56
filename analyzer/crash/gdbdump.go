package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// A rocgdb hang dump (seed 003 R3/R3.5/R4): one attach of rocgdb to a
// worker printing info agents / dispatches / queues / threads / lanes and
// the main thread's bt. The rocgdb parser cuts a file into dumps (a new
// dump starts when a section repeats) and stores them session-wide, so the
// final assembly (hang.go) can compare dumps of several files.

const (
	secAgents = 1 << iota
	secDispatches
	secQueues
	secThreads
	secLanes
	secBT

	maxGdbDumps  = 32
	maxGdbRows   = 512
	maxGdbWaves  = 4096
	maxWaveLanes = 64
)

type gdbDump struct {
	file     string
	pid      int // attached process ("Attaching to process N", file name)
	sections int
	agents   []GPUAgent
	disp     []gdbDispatch
	queues   []QueueState
	waves    map[string]*gdbWave // by agent:queue:dispatch:wave
	waveIDs  []string            // first-seen order
	bt       []string            // main-thread frames (function names)
	btEv     []Evidence
	noDisp   bool
	noQueues bool
	noAgents bool
	crash    bool     // the file shows a GPU stop (a fault, not a hang)
	ev       Evidence // first line of the dump
	noEv     *Evidence
}

type gdbDispatch struct {
	Dispatch
	ev Evidence
}

type gdbWave struct {
	id, workgroup, pc, fn, loc string
	lanes                      []int // threadIdx.x of active lanes (info lanes)
	ev                         Evidence
}

var (
	reGdbThreadWave = lazyre.New(`AMDGPU Wave (\d+:\d+:\d+:\d+) \((\d+,\d+,\d+)\)/(\d+)`)
	reGdbLaneRow    = lazyre.New(`^\*?\s*\d+\s+(?:([AI])\s+)?AMDGPU Lane (\d+:\d+:\d+:\d+)/(\d+) \((\d+,\d+,\d+)\)\[(\d+),(\d+),(\d+)\]`)
	// "Attaching to process N", or the attach command echoed before its
	// output ("$ timeout 90 rocgdb -p N -batch …")
	reGdbAttach = lazyre.New(`Attaching to (?:process|program: \S+, process) (\d+)|^(?:\$ )?(?:timeout \d+\w? )?(?:sudo )?(?:roc|cuda-)?gdb\b.*?\s-p\s+(\d+)\b`)
	reFilePID   = lazyre.New(`(?i)(?:pid|process)[_-]?(\d{2,9})`)
	reFrameNo   = lazyre.New(`^#(\d+)\s+`)
)

// extractGdbAttach: the attached pid of "Attaching to process N" (or
// "… program: P, process N"), or of the echoed "rocgdb -p N" command.
func extractGdbAttach(t string) (pid int, ok bool) {
	m := reGdbAttach.FindStringSubmatch(t)
	if m == nil {
		return 0, false
	}
	if m[1] == "" {
		m[1] = m[2]
	}
	return atoiDef(m[1], 0), true
}

// laneRow: one "info lanes" row, "[*] N [A|I] AMDGPU Lane
// a:q:d:w/L (wg)[x,y,z] [frame]".
type laneRow struct {
	inactive  bool   // state column "I"
	wave      string // agent:queue:dispatch:wave
	workgroup string // "x,y,z"
	x         int    // threadIdx.x, -1 when unreadable
	frame     string // what follows the work-item, "" when absent
}

func extractLaneRow(t string) (laneRow, bool) {
	m := reGdbLaneRow.FindStringSubmatch(t)
	if m == nil {
		return laneRow{}, false
	}
	return laneRow{inactive: m[1] == "I", wave: m[2], workgroup: m[4], x: atoiDef(m[5], -1), frame: frameAfter(t, "]")}, true
}

// gdbState is the rocgdb parser's hang-dump state for the current file.
type gdbState struct {
	cur  *gdbDump
	last int    // line number of the last rocgdb line seen
	wave string // wave whose backtrace follows ("Thread N (AMDGPU Wave …)")
	mode int    // what "#N" frame lines belong to
}

const (
	btNone = iota // a "#0" starts the main-thread bt
	btMain        // main-thread bt
	btWave        // the backtrace of g.wave
	btSkip        // another host thread
)

// dumpActive reports whether lines without rocgdb keywords (bt frames,
// host thread headers) may still belong to the current dump.
func (g *gdbState) dumpActive(no int) bool { return g.cur != nil && no-g.last <= 64 }

func (p *rocgdbParser) curDump(l *line) *gdbDump {
	g := &p.g
	if g.cur == nil {
		s := p.s
		d := &gdbDump{file: s.fileName(l.file), waves: map[string]*gdbWave{}, ev: l.ev(s), pid: p.attachPID}
		if d.pid == 0 {
			d.pid = atoiDef(submatch(reFilePID, d.file), 0)
		}
		inc := &s.b.facts.inc
		if len(inc.gdbDumps) < maxGdbDumps {
			inc.gdbDumps = append(inc.gdbDumps, d)
		}
		g.cur = d
	}
	return g.cur
}

// section starts section sec of a dump; a section that the current dump
// already has starts the next dump.
func (p *rocgdbParser) section(l *line, sec int) *gdbDump {
	g := &p.g
	if g.cur != nil && g.cur.sections&sec != 0 {
		g.cur = nil
	}
	d := p.curDump(l)
	d.sections |= sec
	g.last = l.no
	g.mode = btNone
	if sec == secBT {
		g.mode = btMain
	}
	g.wave = ""
	return d
}

// dumpLine reads the hang-dump view of a rocgdb line; it returns true when
// the line was consumed.
func (p *rocgdbParser) dumpLine(l *line) bool {
	t := strings.TrimSpace(l.text)
	g := &p.g
	s := p.s
	if pid, ok := extractGdbAttach(t); ok {
		p.attachPID = pid
		if g.cur != nil && g.cur.sections == 0 {
			g.cur.pid = p.attachPID
		}
		g.cur = nil
		p.curDump(l).pid = p.attachPID
		g.last = l.no
		return true
	}
	switch {
	case strings.Contains(t, "Target Id"):
		switch {
		case strings.Contains(t, "Kernel Function"):
			p.section(l, secDispatches)
		case strings.Contains(t, "Location") || strings.Contains(t, "PCI Slot"):
			p.section(l, secAgents)
		case strings.Contains(t, "Read") && strings.Contains(t, "Write"):
			p.section(l, secQueues)
		case strings.Contains(t, "Frame") && strings.Contains(t, "State"):
			// info lanes belongs to the threads of the same dump
			if g.cur == nil || g.cur.sections&secLanes != 0 {
				p.section(l, secLanes)
			} else {
				g.cur.sections |= secLanes
				g.last = l.no
			}
		case strings.Contains(t, "Frame"):
			p.section(l, secThreads)
		}
		return false
	case strings.HasPrefix(t, "No dispatches are currently active"):
		d := p.section(l, secDispatches)
		d.noDisp = true
		if d.noEv == nil {
			ev := l.ev(s)
			d.noEv = &ev
		}
		return false
	case strings.HasPrefix(t, "No queues are currently active"):
		d := p.section(l, secQueues)
		d.noQueues = true
		if d.noEv == nil {
			ev := l.ev(s)
			d.noEv = &ev
		}
		return true
	case strings.HasPrefix(t, "No agents are currently active"):
		p.section(l, secAgents).noAgents = true
		return true
	}
	if strings.Contains(t, "AMDGPU Agent") {
		if m := reGdbAgent.FindStringSubmatch(t); m != nil {
			d := p.curDump(l)
			d.sections |= secAgents
			g.last = l.no
			if len(d.agents) < maxGdbRows {
				d.agents = append(d.agents, GPUAgent{ID: atoiDef(m[1], 0), GPUID: m[3], Arch: m[4], Name: strings.TrimSpace(m[5]), Location: m[8]})
			}
		}
		return false
	}
	if strings.Contains(t, "AMDGPU Queue") {
		if m := reGdbQueue.FindStringSubmatch(t); m != nil {
			d := p.curDump(l)
			d.sections |= secQueues
			g.last = l.no
			if len(d.queues) < maxGdbRows {
				q := QueueState{ID: m[2] + ":" + m[3], QID: m[4], Type: m[5]}
				if m[6] != "" {
					q.Read, q.Write = atoi64(m[6]), atoi64(m[7])
					q.Pending = q.Write - q.Read
				}
				d.queues = append(d.queues, q)
			}
		}
		return false
	}
	if strings.Contains(t, "AMDGPU Dispatch") {
		if m := reGdbDispatch.FindStringSubmatch(t); m != nil {
			d := p.curDump(l)
			d.sections |= secDispatches
			g.last = l.no
			if len(d.disp) < maxGdbRows {
				id := m[2] + ":" + m[3] + ":" + m[4]
				d.disp = append(d.disp, gdbDispatch{Dispatch: Dispatch{ID: id, Queue: m[2] + ":" + m[3], PKID: m[5], Grid: m[6], Workgroup: m[7], Fence: m[8], Kernel: clip(strings.TrimSpace(m[9]), 1024)}, ev: l.ev(s)})
			}
		}
		return false
	}
	if strings.Contains(t, "AMDGPU Lane") {
		if strings.HasPrefix(t, "[Switching to thread") {
			// "thread N" of R3.5: the bt that follows is this wave's
			if m := reGdbLane.FindStringSubmatch(t); m != nil {
				d := p.curDump(l)
				g.last = l.no
				p.wave(l, d, m[1], m[3])
				g.wave, g.mode = m[1], btWave
			}
			return false
		}
		if r, ok := extractLaneRow(t); ok {
			d := p.curDump(l)
			g.last = l.no
			if !r.inactive {
				w := p.wave(l, d, r.wave, r.workgroup)
				if len(w.lanes) < maxWaveLanes && !containsInt(w.lanes, r.x) {
					w.lanes = append(w.lanes, r.x)
				}
				if r.frame != "" && w.pc == "" && w.loc == "" {
					w.pc, w.fn, w.loc = splitFrame(r.frame)
				}
			}
		}
		return false
	}
	if strings.Contains(t, "AMDGPU Wave") {
		if m := reGdbThreadWave.FindStringSubmatch(t); m != nil {
			d := p.curDump(l)
			g.last = l.no
			w := p.wave(l, d, m[1], m[2])
			switch {
			case strings.HasPrefix(t, "Thread ") || strings.HasPrefix(t, "[Switching to thread"):
				// a backtrace of this wave follows
				g.wave, g.mode = m[1], btWave
			default:
				// an info threads row: the frame follows the quoted name
				d.sections |= secThreads
				rest := t[strings.Index(t, m[0])+len(m[0]):]
				if i := strings.IndexByte(rest, '"'); i >= 0 {
					if j := strings.IndexByte(rest[i+1:], '"'); j >= 0 {
						rest = rest[i+j+2:]
					}
				}
				if fr := strings.TrimSpace(rest); fr != "" {
					w.pc, w.fn, w.loc = splitFrame(fr)
				}
			}
		}
		return false
	}
	if g.cur == nil {
		return false
	}
	// backtrace frames: of a wave after "Thread N (AMDGPU Wave …)", else of
	// the host thread (the main-thread bt of R3)
	if m := reFrameNo.FindStringSubmatch(t); m != nil {
		g.last = l.no
		switch g.mode {
		case btWave:
			if m[1] == "0" {
				if w := g.cur.waves[g.wave]; w != nil {
					w.pc, w.fn, w.loc = splitFrame(t[len(m[0]):])
					w.ev = l.ev(s)
				}
			}
			return true
		case btSkip:
			return true
		case btNone:
			if m[1] != "0" {
				return true
			}
			p.section(l, secBT)
		}
		d := g.cur
		if len(d.bt) < 64 {
			_, fn, _ := splitFrame(t[len(m[0]):])
			d.bt = append(d.bt, fn)
			if len(d.btEv) < 8 {
				d.btEv = append(d.btEv, l.ev(s))
			}
		}
		return true
	}
	if strings.HasPrefix(t, "Thread ") && strings.Contains(t, "(Thread 0x") {
		// "Thread N (Thread 0x… (LWP n) "python3"):" of thread apply all
		// bt: thread 1 is the main thread
		if strings.HasPrefix(t, "Thread 1 ") {
			p.section(l, secBT)
		} else {
			g.mode = btSkip
		}
		g.last = l.no
		return true
	}
	return false
}

func (p *rocgdbParser) wave(l *line, d *gdbDump, id, wg string) *gdbWave {
	w := d.waves[id]
	if w == nil {
		w = &gdbWave{id: id, workgroup: wg, ev: l.ev(p.s)}
		if len(d.waves) < maxGdbWaves {
			d.waves[id] = w
			d.waveIDs = append(d.waveIDs, id)
		}
	}
	return w
}

// frameAfter returns the text after the first sep in t.
func frameAfter(t, sep string) string {
	if i := strings.Index(t, sep); i >= 0 {
		return strings.TrimSpace(t[i+len(sep):])
	}
	return ""
}

// splitFrame splits a gdb frame "0x… in fn (args) at file:line" /
// "… from lib" into pc, function and location (file:line or library).
func splitFrame(fr string) (pc, fn, loc string) {
	fr = strings.TrimSpace(fr)
	if strings.HasPrefix(fr, "0x") {
		i := strings.IndexByte(fr, ' ')
		if i < 0 {
			return normPC(fr), "", ""
		}
		pc = normPC(fr[:i])
		fr = strings.TrimSpace(fr[i:])
		fr = strings.TrimPrefix(fr, "in ")
	}
	if i := strings.LastIndex(fr, " at "); i > 0 {
		loc = strings.TrimSpace(fr[i+4:])
		fr = fr[:i]
	} else if i := strings.LastIndex(fr, " from "); i > 0 {
		loc = strings.TrimSpace(fr[i+6:])
		fr = fr[:i]
	}
	fr = strings.TrimSpace(fr)
	// drop the trailing argument list "(…)" of the frame (not the kernel's
	// own parameter list, which the frame prints before " ()")
	if strings.HasSuffix(fr, ")") {
		depth := 0
		for i := len(fr) - 1; i >= 0; i-- {
			switch fr[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				if i > 0 && fr[i-1] == ' ' {
					fr = strings.TrimSpace(fr[:i])
				}
				break
			}
		}
	}
	return pc, clip(fr, 1024), loc
}

func normPC(s string) string {
	if n, ok := normAddr(s); ok {
		return n
	}
	return s
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// agentOf returns the agent row a queue / dispatch id ("1:2[:7]") runs on.
func (d *gdbDump) agentOf(id string) *GPUAgent {
	a := id
	if i := strings.IndexByte(id, ':'); i >= 0 {
		a = id[:i]
	}
	n, err := strconv.Atoi(a)
	if err != nil {
		return nil
	}
	for i := range d.agents {
		if d.agents[i].ID == n {
			return &d.agents[i]
		}
	}
	return nil
}
