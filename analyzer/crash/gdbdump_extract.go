package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Pure extractors of a rocgdb hang dump (seed 003 R3/R3.5/R4): each line
// is one typed fact — the attach, a section header, an agent / queue /
// dispatch / lane / wave row, a backtrace frame, a host thread header.
// The section state machine (gdbdump.go) only cuts them into dumps.

type gdbLineKind uint8

const (
	glOther      gdbLineKind = iota // nothing of a dump
	glClaimed                       // a dump keyword without a readable row
	glAttach                        // pid
	glDetach                        // pid: "[Inferior N (process P) detached]"
	glHeader                        // a "Target Id" table header: sec
	glNoActive                      // "No dispatches / queues / agents are currently active": sec
	glAgent                         // info agents row
	glQueue                         // info queues row
	glDispatch                      // info dispatches row
	glLaneSwitch                    // "[Switching to thread … AMDGPU Lane …]": wave, workgroup
	glLane                          // info lanes row
	glWaveRow                       // info threads row of a wave: wave, workgroup, frame
	glWaveBT                        // "Thread N (AMDGPU Wave …)": the wave's backtrace follows
	glFrame                         // "#N …": frameNo, frame
	glHostThread                    // "Thread N (Thread 0x… (LWP n) …)": main when N is 1
)

// gdbLine is one rocgdb hang-dump line read.
type gdbLine struct {
	kind            gdbLineKind
	pid             int
	sec             int
	agent           GPUAgent
	queue           queueRow
	disp            dispatchRow
	lane            laneRow
	wave, workgroup string
	frameNo, frame  string
	main            bool
}

var (
	reGdbThreadWave = lazyre.New(`AMDGPU Wave (\d+:\d+:\d+:\d+) \((\d+,\d+,\d+)\)/(\d+)`)
	reGdbLaneRow    = lazyre.New(`^\*?\s*\d+\s+(?:([AI])\s+)?AMDGPU Lane (\d+:\d+:\d+:\d+)/(\d+) \((\d+,\d+,\d+)\)\[(\d+),(\d+),(\d+)\]`)
	// "Attaching to process N", or the attach command echoed before its
	// output ("$ timeout 90 rocgdb -p N -batch …")
	reGdbAttach = lazyre.New(`Attaching to (?:process|program: \S+, process) (\d+)|^(?:\$ )?(?:timeout \d+\w? )?(?:sudo )?(?:roc|cuda-)?gdb\b.*?\s-p\s+(\d+)\b`)
	// gdb's own message when the recipe's "detach" runs (seed 003 R3)
	reGdbDetach = lazyre.New(`^\[Inferior \d+ \(process (\d+)\) detached\]`)
	reFilePID   = lazyre.New(`(?i)(?:pid|process)[_-]?(\d{2,9})`)
	reFrameNo   = lazyre.New(`^#(\d+)\s+`)
)

// extractGdbDumpLine reads one trimmed line of a rocgdb dump.
func extractGdbDumpLine(t string) gdbLine {
	if pid, ok := extractGdbAttach(t); ok {
		return gdbLine{kind: glAttach, pid: pid}
	}
	if m := reGdbDetach.FindStringSubmatch(t); m != nil {
		return gdbLine{kind: glDetach, pid: atoiDef(m[1], 0)}
	}
	switch {
	case strings.Contains(t, "Target Id"):
		h := gdbLine{kind: glClaimed}
		switch {
		case strings.Contains(t, "Kernel Function"):
			h.kind, h.sec = glHeader, secDispatches
		case strings.Contains(t, "Location") || strings.Contains(t, "PCI Slot"):
			h.kind, h.sec = glHeader, secAgents
		case strings.Contains(t, "Read") && strings.Contains(t, "Write"):
			h.kind, h.sec = glHeader, secQueues
		case strings.Contains(t, "Frame") && strings.Contains(t, "State"):
			h.kind, h.sec = glHeader, secLanes
		case strings.Contains(t, "Frame"):
			h.kind, h.sec = glHeader, secThreads
		}
		return h
	case strings.HasPrefix(t, "No dispatches are currently active"):
		return gdbLine{kind: glNoActive, sec: secDispatches}
	case strings.HasPrefix(t, "No queues are currently active"):
		return gdbLine{kind: glNoActive, sec: secQueues}
	case strings.HasPrefix(t, "No agents are currently active"):
		return gdbLine{kind: glNoActive, sec: secAgents}
	}
	if strings.Contains(t, "AMDGPU Agent") {
		if a, ok := extractAgentRow(t); ok {
			return gdbLine{kind: glAgent, agent: a}
		}
		return gdbLine{kind: glClaimed}
	}
	if strings.Contains(t, "AMDGPU Queue") {
		if q, ok := extractQueueRow(t); ok {
			return gdbLine{kind: glQueue, queue: q}
		}
		return gdbLine{kind: glClaimed}
	}
	if strings.Contains(t, "AMDGPU Dispatch") {
		if d, ok := extractDispatchRow(t); ok {
			return gdbLine{kind: glDispatch, disp: d}
		}
		return gdbLine{kind: glClaimed}
	}
	if strings.Contains(t, "AMDGPU Lane") {
		if strings.HasPrefix(t, "[Switching to thread") {
			// "thread N" of R3.5: the bt that follows is this wave's
			if m := reGdbLane.FindStringSubmatch(t); m != nil {
				return gdbLine{kind: glLaneSwitch, wave: m[1], workgroup: m[3]}
			}
			return gdbLine{kind: glClaimed}
		}
		if r, ok := extractLaneRow(t); ok {
			return gdbLine{kind: glLane, lane: r}
		}
		return gdbLine{kind: glClaimed}
	}
	if strings.Contains(t, "AMDGPU Wave") {
		m := reGdbThreadWave.FindStringSubmatch(t)
		if m == nil {
			return gdbLine{kind: glClaimed}
		}
		if strings.HasPrefix(t, "Thread ") || strings.HasPrefix(t, "[Switching to thread") {
			return gdbLine{kind: glWaveBT, wave: m[1], workgroup: m[2]}
		}
		if strings.HasPrefix(t, "[") {
			// a thread event ("[New AMDGPU Wave 1:1:1:1 (0,0,0)/0]", "[AMDGPU
			// Wave 4:2:1:1 (0,0,0)/0 exited]"), not an info threads row
			return gdbLine{kind: glClaimed}
		}
		// an info threads row: the frame follows the quoted name
		rest := t[strings.Index(t, m[0])+len(m[0]):]
		if i := strings.IndexByte(rest, '"'); i >= 0 {
			if j := strings.IndexByte(rest[i+1:], '"'); j >= 0 {
				rest = rest[i+j+2:]
			}
		}
		return gdbLine{kind: glWaveRow, wave: m[1], workgroup: m[2], frame: strings.TrimSpace(rest)}
	}
	if m := reFrameNo.FindStringSubmatch(t); m != nil {
		return gdbLine{kind: glFrame, frameNo: m[1], frame: t[len(m[0]):]}
	}
	if strings.HasPrefix(t, "Thread ") && strings.Contains(t, "(Thread 0x") {
		// "Thread N (Thread 0x… (LWP n) "python3"):" of thread apply all bt
		return gdbLine{kind: glHostThread, main: strings.HasPrefix(t, "Thread 1 ")}
	}
	return gdbLine{}
}

// reBannerPID: a section banner that names the process the next dump is
// of ("===== TP2 pid 61012 =====", "### worker pid=61012 ###"): the
// per-worker form of the recipe's "echo === info agents ===" banners
// (seeds 001/003) when one file collects the dumps of several workers.
var reBannerPID = lazyre.New(`(?i)^(?:={3,}|#{3,}|-{3,})[^=#]*?\bpid[ =:]?\s*(\d{2,9})\b[^=#]*(?:={3,}|#{3,}|-{3,})?$`)

// extractGdbAttach: the attached pid of "Attaching to process N" (or
// "… program: P, process N"), of the echoed "rocgdb -p N" command, or of
// a section banner naming the worker's pid.
func extractGdbAttach(t string) (pid int, ok bool) {
	if len(t) > 3 && (t[0] == '=' || t[0] == '#' || t[0] == '-') && t[1] == t[0] && t[2] == t[0] {
		if m := reBannerPID.FindStringSubmatch(t); m != nil {
			return atoiDef(m[1], 0), true
		}
	}
	// both forms hold a literal the regexp cannot look for first (its
	// second form is anchored): a quarter of a 40 MB rocgdb dump's time
	if !strings.Contains(t, "Attaching to ") && !strings.Contains(t, "gdb") {
		return 0, false
	}
	m := reGdbAttach.FindStringSubmatch(t)
	if m == nil {
		return 0, false
	}
	if m[1] == "" {
		m[1] = m[2]
	}
	return atoiDef(m[1], 0), true
}

// extractAgentRow: one "info agents" row.
func extractAgentRow(t string) (GPUAgent, bool) {
	m := reGdbAgent.FindStringSubmatch(t)
	if m == nil {
		return GPUAgent{}, false
	}
	return GPUAgent{ID: atoiDef(m[1], 0), GPUID: m[3], Arch: m[4], Name: strings.TrimSpace(m[5]), Location: m[8]}, true
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

// rocgdb's MI mode (-i=mi) prints the same tables as result records, one
// line per command (crash-formats.md §7.2, from a Rust MI adapter's tests):
//
//	^done,agents=[{id="1.1",state="A",target-id="AMDGPU Agent (GPUID 35090)",architecture="gfx942",name="MI300X",…,location="0000:01:00.0"}]
//	^done,queues=[{id="1.1",target-id="AMDGPU Queue 1:1 (QID 0)",type="HSA",read="11524",write="11527",…}]
//	^done,dispatches=[{id="1.1",target-id="AMDGPU Dispatch 1:1:11525 (PKID 11524)",grid="[1216,1,1]",workgroup="[64,1,1]",fence="B|As|Rs",…,kernel-function="…"}]
//	=thread-group-started,id="i1",pid="61877"
//
// extractMIRecord turns such a line into the facts the table rows give.
// Tuples start at their "id" key: a kernel name may hold braces
// ("{lambda(int)#1}"), so the text is walked key by key, never split on "}".
var (
	reMIPair    = lazyre.New(`([a-z][a-z-]*)="((?:[^"\\]|\\.)*)"`)
	reMIAgentID = lazyre.New(`^AMDGPU Agent \(GPUID (\d+)\)`)
	reMIQueueID = lazyre.New(`^AMDGPU Queue (\d+):(\d+) \(QID (\d+)\)`)
	reMIDispID  = lazyre.New(`^AMDGPU Dispatch (\d+):(\d+):(\d+) \(PKID (\d+)\)`)
)

func extractMIRecord(t string) []gdbLine {
	var kind gdbLineKind
	switch {
	case strings.HasPrefix(t, "=thread-group-started,"):
		for _, m := range reMIPair.FindAllStringSubmatch(t, 4) {
			if m[1] == "pid" {
				if pid := atoiDef(m[2], 0); pid > 0 {
					return []gdbLine{{kind: glAttach, pid: pid}}
				}
			}
		}
		return nil
	case !strings.HasPrefix(t, "^done,"):
		return nil
	case strings.HasPrefix(t, "^done,agents=["):
		kind = glAgent
	case strings.HasPrefix(t, "^done,queues=["):
		kind = glQueue
	case strings.HasPrefix(t, "^done,dispatches=["):
		kind = glDispatch
	default:
		return nil
	}
	var out []gdbLine
	var kv map[string]string
	flush := func() {
		if kv == nil {
			return
		}
		if r, ok := miRow(kind, kv); ok && len(out) < maxGdbRows {
			out = append(out, r)
		}
	}
	for _, m := range reMIPair.FindAllStringSubmatch(t, -1) {
		if m[1] == "id" {
			flush()
			kv = map[string]string{}
		}
		if kv != nil {
			kv[m[1]] = strings.ReplaceAll(m[2], `\"`, `"`)
		}
	}
	flush()
	if len(out) == 0 {
		// "dispatches=[]": the table's "No dispatches are currently active."
		return []gdbLine{{kind: glNoActive, sec: map[gdbLineKind]int{glAgent: secAgents, glQueue: secQueues, glDispatch: secDispatches}[kind]}}
	}
	return out
}

// miRow is one MI tuple as the table row of its command.
func miRow(kind gdbLineKind, kv map[string]string) (gdbLine, bool) {
	tid := kv["target-id"]
	switch kind {
	case glAgent:
		m := reMIAgentID.FindStringSubmatch(tid)
		if m == nil {
			return gdbLine{}, false
		}
		id := kv["id"]
		if i := strings.LastIndexByte(id, '.'); i >= 0 {
			id = id[i+1:]
		}
		return gdbLine{kind: glAgent, agent: GPUAgent{ID: atoiDef(id, 0), GPUID: m[1], Arch: kv["architecture"], Name: kv["name"], Location: kv["location"]}}, true
	case glQueue:
		m := reMIQueueID.FindStringSubmatch(tid)
		if m == nil {
			return gdbLine{}, false
		}
		return gdbLine{kind: glQueue, queue: queueRow{id: m[1] + ":" + m[2], qid: m[3], typ: kv["type"], read: kv["read"], write: kv["write"]}}, true
	default:
		m := reMIDispID.FindStringSubmatch(tid)
		if m == nil {
			return gdbLine{}, false
		}
		id := m[1] + ":" + m[2] + ":" + m[3]
		return gdbLine{kind: glDispatch, disp: dispatchRow{target: id + " PKID " + m[4], kernel: kv["kernel-function"], fence: kv["fence"],
			id: id, queue: m[1] + ":" + m[2], pkid: m[4], grid: kv["grid"], workgroup: kv["workgroup"]}}, true
	}
}
