package crash

import (
	"path"
	"strings"
)

// kernelAPIParser reads SGLang @debug_kernel_api and FlashInfer
// @flashinfer_api logs (docs section 9, seed 000) at every level:
//
//   - level 1: "Kernel API Call: <name>" boundaries; the last call without an
//     Output record is the crashing boundary;
//   - level 3: the call's arguments (shape, dtype, contiguity), kept for the
//     last call;
//   - level 5: nan_count / inf_count of inputs and outputs — the first call
//     whose output has NaN/Inf while its inputs are clean is where the
//     numbers went bad;
//   - level 10: dump folders <ts>_pid<pid>_<name>_call<NNNN>/{inputs.pt,
//     metadata.json, outputs.pt}, from "Dumped inputs to:" lines, path
//     listings and metadata.json / metadata.jsonl documents (sidedoc.go):
//     the last folder with inputs but no outputs crashed inside its call.
//
// The parser is a loop: extractKAPILine / extractKAPILogName
// (kernelapi_extract.go) read the lines, kapiRecord (kernelapi_record.go)
// assembles a call's argument rows, kernelAPIFact keeps the facts and
// kernelapi_rules.go decides.
type kernelAPIParser struct {
	s   *Session
	rec kapiRecord // the open call record (argument lines carry no keyword)
}

// kernelAPIFact is what the kernel-API evidence says, session wide.
type kernelAPIFact struct {
	lastCall     string
	lastCallEv   *Evidence
	lastDone     bool // an Output record followed the last call
	exceptionAPI string
	exceptionMsg string
	exceptionEv  *Evidence
	dumpStatus   string // metadata.json execution_status of the last dump
	dumpFunc     string
	calls        int
	level        int
	source       string // SGLang | FlashInfer
	pid          int    // process id of the last call's log (%i file name)
	logFile      string // file holding the last call

	args     []string // the last call's arguments, summarised (level ≥ 3)
	firstNaN *kapiNaN // the first call whose output has NaN/Inf while its inputs are clean

	logs []kapiLog // the last call of every log file seen (per-pid %i files)

	dumps        []kapiDump
	dumpFilter   string // SGLANG_KERNEL_API_DUMP_INCLUDE / EXCLUDE seen in the evidence
	graphSkipped bool   // "Tensor dump skipped: CUDA graph capture in progress"
}

// kapiLog is the end of one kernel-API log file: its last call.
type kapiLog struct {
	file     string
	pid      int
	lastCall string
	ev       *Evidence
	done     bool
	args     []string
}

const maxKAPILogs = 64

type kapiNaN struct {
	call   string
	output string // "return: nan_count=3"
	ev     Evidence
}

// kapiDump is one level-10 dump folder.
type kapiDump struct {
	dir      string
	function string
	pid      int
	call     int
	stamp    string // YYYYMMDD_HHMMSS_mmm from the folder name
	status   string // execution_status
	inputs   bool
	outputs  bool
	ev       Evidence
	seq      int // order seen
	metadata bool
}

const maxDumps = 256

func (p *kernelAPIParser) beginFile(*Session) { p.endRecord() }
func (p *kernelAPIParser) endFile() {
	p.endRecord()
	k := &p.s.b.facts.kernelAPI
	if k.lastCall == "" || k.logFile == "" || len(k.logs) >= maxKAPILogs {
		return
	}
	for _, g := range k.logs {
		if g.file == k.logFile {
			return
		}
	}
	k.logs = append(k.logs, kapiLog{file: k.logFile, pid: k.pid, lastCall: k.lastCall, ev: k.lastCallEv, done: k.lastDone, args: append([]string(nil), k.args...)})
}

// endRecord closes the open call record and hands it to the facts.
func (p *kernelAPIParser) endRecord() {
	if c := p.rec.finish(); c != nil {
		p.s.b.facts.kernelAPI.endCall(c)
	}
}

func (p *kernelAPIParser) line(l *line) {
	t := strings.TrimSpace(l.text)
	s := p.s
	k := &s.b.facts.kernelAPI
	if p.rec.open {
		consumed, done := p.rec.row(t)
		if done != nil {
			k.endCall(done)
		}
		if consumed {
			return
		}
	}
	if !containsAny(t, kernelAPIKeywords...) {
		return
	}
	f := extractKAPILine(t)
	switch {
	case f.call != nil:
		p.endRecord()
		s.format("kernel_api_log")
		ev := l.ev(s)
		k.beginCall(*f.call, ev, s.fileName(l.file))
		p.rec.start(k.lastCall, ev)
	case f.exc != nil:
		p.endRecord()
		s.format("kernel_api_log")
		ev := l.ev(s)
		k.exceptionAPI, k.exceptionEv = f.exc.api, &ev
		if f.exc.msg != "" {
			k.exceptionMsg = f.exc.msg
		}
		if k.lastCall == f.exc.api {
			k.lastDone = false
		}
	}
	if f.boundary {
		return
	}
	if d := f.dump; d != nil {
		if d.logged {
			k.level = max(k.level, 10)
		}
		s.noteDump(d.dir, "", "", d.inputs, d.outputs, l.ev(s), d.metadata)
	}
	if f.graphSkip {
		k.graphSkipped = true
	}
	if f.filter != "" {
		k.dumpFilter = f.filter
	}
	if f.envLevel > k.level {
		k.level = f.envLevel
	}
	if f.hasFunction {
		k.dumpFunc = f.function
		s.format("kernel_api_dump_metadata")
	}
	if f.hasStatus {
		k.dumpStatus = f.status
	}
	if f.exception != "" && k.exceptionMsg == "" {
		k.exceptionMsg = f.exception
	}
	if f.logPID != "" {
		s.b.facts.notes = appendCap(s.b.facts.notes, "kernel-API log files are named by process id (%i = pid "+f.logPID+"), not by rank: map pid → rank from other lines", 8)
	}
}

// beginCall: a call line starts the last call; its record (arguments,
// Output) follows in endCall.
func (k *kernelAPIFact) beginCall(c kapiCall, ev Evidence, file string) {
	k.lastCall, k.lastCallEv, k.lastDone, k.source = c.name, &ev, false, c.source
	k.args = k.args[:0]
	k.calls++
	k.logFile = file
	pid, lv := extractKAPILogName(file)
	k.pid = pid
	k.level = max(k.level, lv, 1)
}

// endCall takes a finished call record: the last call's arguments and
// whether it returned, and the first call whose output went NaN/Inf.
func (k *kernelAPIFact) endCall(c *kapiCallRecord) {
	k.args = append(k.args[:0], c.args...)
	k.lastDone = c.done
	k.level = max(k.level, c.level)
	if c.badOutput != "" && !c.inputsBad && k.firstNaN == nil {
		k.firstNaN = &kapiNaN{call: c.call, output: c.badOutput, ev: c.ev}
	}
}

// noteDump records a level-10 dump folder seen in a log line, a path
// listing or a metadata document.
func (s *Session) noteDump(dir, function, status string, inputs, outputs bool, ev Evidence, metadata bool) {
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" || strings.Contains(dir, "<") || strings.Contains(dir, "...") {
		return // a documented layout, not a real folder
	}
	s.noteDumpRaw(dir, function, status, inputs, outputs, ev, metadata)
}

// noteDumpMeta records a dump folder from its metadata document.
func (s *Session) noteDumpMeta(dir, function, status string, ev Evidence) {
	s.noteDumpRaw(dir, function, status, false, false, ev, true)
}

func (s *Session) noteDumpRaw(dir, function, status string, inputs, outputs bool, ev Evidence, metadata bool) {
	k := &s.b.facts.kernelAPI
	if k.level < 10 {
		k.level = 10
	}
	i := -1
	base := path.Base(dir)
	named := reDumpDir.MatchString(base)
	for j := range k.dumps {
		if k.dumps[j].dir == dir || named && path.Base(k.dumps[j].dir) == base {
			// the same folder seen by another path: keep the absolute one
			if strings.HasPrefix(dir, "/") && !strings.HasPrefix(k.dumps[j].dir, "/") {
				k.dumps[j].dir = dir
			}
			i = j
			break
		}
	}
	if i < 0 {
		d := kapiDump{dir: dir, ev: ev, seq: len(k.dumps)}
		if m := reDumpDir.FindStringSubmatch(path.Base(dir)); m != nil {
			d.stamp, d.pid, d.function, d.call = m[1], atoiDef(m[2], 0), m[3], atoiDef(m[4], 0)
		}
		if len(k.dumps) >= maxDumps {
			// keep the newest: drop the oldest-ordered folder
			lo := 0
			for j := range k.dumps {
				if dumpBefore(&k.dumps[j], &k.dumps[lo]) {
					lo = j
				}
			}
			k.dumps = append(k.dumps[:lo], k.dumps[lo+1:]...)
		}
		k.dumps = append(k.dumps, d)
		i = len(k.dumps) - 1
	}
	d := &k.dumps[i]
	if function != "" {
		d.function = function
	}
	if status != "" {
		d.status = status
		d.ev = ev
		if status == "completed" {
			d.outputs = true
		}
		d.inputs = true
	}
	d.inputs = d.inputs || inputs
	d.outputs = d.outputs || outputs
	d.metadata = d.metadata || metadata
}

// dumpBefore orders dump folders by their time stamp and call number, then
// by the order they were seen.
func dumpBefore(a, b *kapiDump) bool {
	if a.stamp != b.stamp && a.stamp != "" && b.stamp != "" {
		return a.stamp < b.stamp
	}
	if a.pid == b.pid && a.call != b.call {
		return a.call < b.call
	}
	return a.seq < b.seq
}

// DumpFolder reports whether dir is a level-10 dump folder whose
// metadata document was read: the tensor files beside it (inputs.pt,
// outputs.pt, written by torch.save) belong to that evidence.
func (s *Session) DumpFolder(dir string) bool {
	for _, d := range s.b.facts.kernelAPI.dumps {
		if d.metadata && d.dir == dir {
			return true
		}
	}
	return false
}
