package crash

import (
	"strconv"
	"strings"
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
	lockWait int      // host threads whose top frames wait on a lock (gdblock.go)
	lockEv   Evidence // the first such frame
	crash    bool     // the file shows a GPU stop (a fault) or a debugger snapshot (core file, breakpoint): not a hang
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
	btHost        // another host thread, its lock wait not yet seen (gdblock.go)
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

// row: a table row of section sec belongs to the current dump.
func (p *rocgdbParser) row(l *line, sec int) *gdbDump {
	d := p.curDump(l)
	d.sections |= sec
	p.g.last = l.no
	return d
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

// dumpLine reads the hang-dump view of a rocgdb line (extractGdbDumpLine)
// into the current dump; it returns true when the line was consumed.
func (p *rocgdbParser) dumpLine(l *line) bool {
	t := strings.TrimSpace(l.text)
	if rs := extractMIRecord(t); rs != nil {
		// one MI record holds a whole table: its command's section
		if sec := map[gdbLineKind]int{glAgent: secAgents, glQueue: secQueues, glDispatch: secDispatches}[rs[0].kind]; sec != 0 {
			p.section(l, sec)
		}
		for _, r := range rs {
			p.dumpFact(l, r)
		}
		return rs[0].kind == glAttach
	}
	return p.dumpFact(l, extractGdbDumpLine(t))
}

// dumpFact applies one fact of a dump line.
func (p *rocgdbParser) dumpFact(l *line, r gdbLine) bool {
	g := &p.g
	s := p.s
	switch r.kind {
	case glAttach:
		p.attachPID = r.pid
		if g.cur != nil && g.cur.sections == 0 {
			g.cur.pid = p.attachPID
		}
		g.cur = nil
		p.curDump(l).pid = p.attachPID
		g.last = l.no
		return true
	case glDetach:
		// The dump just read belonged to this pid when no attach line said
		// so (a -batch log that kept only gdb's own output). Defeated before
		// any table was read: gdb also detaches the parent when following a
		// fork ("[Detaching after fork from parent process N]" then
		// "[Inferior 1 (process N) detached]"), and that pid is not the one
		// examined.
		if g.cur == nil || g.cur.sections == 0 {
			return true
		}
		if g.cur.pid == 0 {
			g.cur.pid = r.pid
		}
		if p.attachPID == 0 {
			p.attachPID = r.pid
		}
		g.last = l.no
		return true
	case glHeader:
		if r.sec == secLanes && g.cur != nil && g.cur.sections&secLanes == 0 {
			// info lanes belongs to the threads of the same dump
			g.cur.sections |= secLanes
			g.last = l.no
		} else {
			p.section(l, r.sec)
		}
		return false
	case glNoActive:
		d := p.section(l, r.sec)
		if r.sec == secAgents {
			d.noAgents = true
			return true
		}
		if r.sec == secDispatches {
			d.noDisp = true
		} else {
			d.noQueues = true
		}
		if d.noEv == nil {
			ev := l.ev(s)
			d.noEv = &ev
		}
		return r.sec == secQueues
	case glClaimed:
		return false
	case glAgent:
		d := p.row(l, secAgents)
		if len(d.agents) < maxGdbRows {
			d.agents = append(d.agents, r.agent)
		}
		return false
	case glQueue:
		d := p.row(l, secQueues)
		if len(d.queues) < maxGdbRows {
			q := QueueState{ID: r.queue.id, QID: r.queue.qid, Type: r.queue.typ}
			if r.queue.read != "" {
				q.Read, q.Write = atoi64(r.queue.read), atoi64(r.queue.write)
				q.Pending = q.Write - q.Read
			}
			d.queues = append(d.queues, q)
		}
		return false
	case glDispatch:
		d := p.row(l, secDispatches)
		if len(d.disp) < maxGdbRows {
			x := r.disp
			d.disp = append(d.disp, gdbDispatch{Dispatch: Dispatch{ID: x.id, Queue: x.queue, PKID: x.pkid, Grid: x.grid, Workgroup: x.workgroup, Fence: x.fence, Kernel: clip(x.kernel, 1024)}, ev: l.ev(s)})
		}
		return false
	case glLaneSwitch, glWaveBT:
		// the backtrace that follows is this wave's
		d := p.curDump(l)
		g.last = l.no
		p.wave(l, d, r.wave, r.workgroup)
		g.wave, g.mode = r.wave, btWave
		return false
	case glLane:
		d := p.curDump(l)
		g.last = l.no
		if x := r.lane; !x.inactive {
			w := p.wave(l, d, x.wave, x.workgroup)
			if len(w.lanes) < maxWaveLanes && !containsInt(w.lanes, x.x) {
				w.lanes = append(w.lanes, x.x)
			}
			if x.frame != "" && w.pc == "" && w.loc == "" {
				w.pc, w.fn, w.loc = splitFrame(x.frame)
			}
		}
		return false
	case glWaveRow:
		d := p.curDump(l)
		g.last = l.no
		w := p.wave(l, d, r.wave, r.workgroup)
		d.sections |= secThreads
		if r.frame != "" {
			w.pc, w.fn, w.loc = splitFrame(r.frame)
		}
		return false
	}
	if g.cur == nil {
		return false
	}
	switch r.kind {
	case glFrame:
		// backtrace frames: of a wave after "Thread N (AMDGPU Wave …)", else
		// of the host thread (the main-thread bt of R3)
		g.last = l.no
		switch g.mode {
		case btWave:
			if r.frameNo == "0" {
				if w := g.cur.waves[g.wave]; w != nil {
					w.pc, w.fn, w.loc = splitFrame(r.frame)
					w.ev = l.ev(s)
				}
			}
			return true
		case btSkip:
			return true
		case btHost:
			if lockFrame(r.frame) {
				g.cur.lockWait++
				if g.cur.lockWait == 1 {
					g.cur.lockEv = l.ev(s)
				}
				g.mode = btSkip
			}
			return true
		case btNone:
			if r.frameNo != "0" {
				return true
			}
			p.section(l, secBT)
		}
		d := g.cur
		if len(d.bt) < 64 {
			_, fn, _ := splitFrame(r.frame)
			d.bt = append(d.bt, fn)
			if len(d.btEv) < 8 {
				d.btEv = append(d.btEv, l.ev(s))
			}
		}
		return true
	case glHostThread:
		// thread apply all bt: thread 1 is the main thread
		if r.main {
			p.section(l, secBT)
		} else {
			g.mode = btHost
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
