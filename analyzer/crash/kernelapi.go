package crash

import (
	"path"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
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
type kernelAPIParser struct {
	s        *Session
	inRecord bool // inside a call record (argument lines carry no keyword)
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
	section  byte     // 'i' inputs, 'o' output, 0 outside
	cur      *kapiArg
	inBad    bool   // an input of the current call has NaN/Inf
	outBad   string // the first NaN/Inf output of the current call
	curCall  string
	curEv    *Evidence
	firstNaN *kapiNaN

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

type kapiArg struct {
	name, value, shape, dtype, contiguous string
	nan, inf                              int
}

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

var (
	reKAPICall   = lazyre.New(`(SGLang Kernel|FlashInfer) API Call: (\S.*)$`)
	reKAPIExc    = lazyre.New(`SGLang Kernel API Exception: (\S+)(?: \((\w+): (.*)\))?`)
	reMetaFunc   = lazyre.New(`"function_name": ?"([^"]*)"`)
	reMetaStat   = lazyre.New(`"execution_status": ?"([^"]*)"`)
	reMetaExc    = lazyre.New(`"exception": ?\{"type": ?"([^"]*)", ?"message": ?"([^"]*)"`)
	reDumpedTo   = lazyre.New(`(?:Dumped (inputs|outputs) to|(Inputs|Outputs) dumped to): (\S+)`)
	reLogFilePID = lazyre.New(`_level(\d+)_(\d+)\.log\b`)
	// seed 000's kernel_api_rank%i.log: %i is the pid (docs section 16)
	reLogFileRank = lazyre.New(`(?:rank|pid|_)(\d{3,9})\.log$`)
	reArgStart    = lazyre.New(`^(arg\[\d+\]|[A-Za-z_]\w*)\s*(?:=|:$|: )\s*(.*)$`)
	reShape       = lazyre.New(`shape=(\([^)]*\)|\[[^\]]*\])`)
	reDtype       = lazyre.New(`dtype=([\w.]+)`)
	reContig      = lazyre.New(`is_contiguous=(True|False)`)
	reNaNCount    = lazyre.New(`nan_count=(\d+)`)
	reInfCount    = lazyre.New(`inf_count=(\d+)`)
	reDumpPath    = lazyre.New(`((?:[\w.~+@-]*/)*[\w.+@-]+)/(inputs\.pt|outputs\.pt|metadata\.jsonl?|inputs\.safetensors|outputs\.safetensors)\b`)
	reDumpDir     = lazyre.New(`^(\d{8}_\d{6}_\d{3})_(?:pid(\d+)_)?(.+)_call(\d+)$`)
	reDumpFilter  = lazyre.New(`((?:SGLANG_KERNEL_API|FLASHINFER)_DUMP_(?:INCLUDE|EXCLUDE))=(\S+)`)
	reLevelEnv    = lazyre.New(`(?:SGLANG_KERNEL_API_LOGLEVEL|FLASHINFER_LOGLEVEL)=["']?(\d+)`)
)

// fields of a value that are not arguments of their own
var kapiFields = map[string]bool{"shape": true, "dtype": true, "device": true, "requires_grad": true, "is_contiguous": true,
	"min": true, "max": true, "mean": true, "nan_count": true, "inf_count": true, "stride": true, "statistics": true, "repr": true}

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

// crashedLog picks, among several per-process logs, the one of the process
// that died: the pid a supervisor reported dead, else the only log whose
// last call never returned. ok is false when the logs do not decide.
func (k *kernelAPIFact) crashedLog(exits []exitFact) (kapiLog, bool) {
	if len(k.logs) < 2 {
		return kapiLog{}, false
	}
	for _, e := range exits {
		if e.pid <= 0 || e.signal == "" || e.signal == "SIGTERM" {
			continue
		}
		for _, g := range k.logs {
			if g.pid == e.pid {
				return g, true
			}
		}
	}
	var open []kapiLog
	for _, g := range k.logs {
		if !g.done {
			open = append(open, g)
		}
	}
	if len(open) == 1 {
		return open[0], true
	}
	return kapiLog{}, false
}

// endRecord closes the current call record: its NaN verdict.
func (p *kernelAPIParser) endRecord() {
	p.inRecord = false
	k := &p.s.b.facts.kernelAPI
	p.flushArg()
	if k.outBad != "" && !k.inBad && k.firstNaN == nil && k.curEv != nil {
		k.firstNaN = &kapiNaN{call: k.curCall, output: k.outBad, ev: *k.curEv}
	}
	k.section, k.cur, k.inBad, k.outBad = 0, nil, false, ""
}

func (p *kernelAPIParser) flushArg() {
	k := &p.s.b.facts.kernelAPI
	a := k.cur
	if a == nil {
		return
	}
	k.cur = nil
	bad := ""
	if a.nan > 0 {
		bad = "nan_count=" + strconv.Itoa(a.nan)
	}
	if a.inf > 0 {
		bad = strings.TrimSpace(bad + " inf_count=" + strconv.Itoa(a.inf))
	}
	switch k.section {
	case 'i':
		if bad != "" {
			k.inBad = true
		}
		if len(k.args) < 16 {
			k.args = append(k.args, a.summary())
		}
	case 'o':
		if bad != "" && k.outBad == "" {
			k.outBad = a.name + ": " + bad
		}
	}
}

func (a *kapiArg) summary() string {
	var b strings.Builder
	b.WriteString(a.name)
	b.WriteString(": ")
	if a.shape != "" || a.dtype != "" {
		b.WriteString("Tensor")
		if a.shape != "" {
			b.WriteString(" shape=" + a.shape)
		}
		if a.dtype != "" {
			b.WriteString(" dtype=" + a.dtype)
		}
		if a.contiguous != "" {
			b.WriteString(" contiguous=" + a.contiguous)
		}
		if a.nan > 0 || a.inf > 0 {
			b.WriteString(" nan_count=" + strconv.Itoa(a.nan) + " inf_count=" + strconv.Itoa(a.inf))
		}
	} else if v := strings.TrimSuffix(a.value, "("); v != "" {
		b.WriteString(clip(v, 80))
	} else {
		b.WriteString("…")
	}
	return b.String()
}

func (p *kernelAPIParser) line(l *line) {
	t := strings.TrimSpace(l.text)
	s := p.s
	k := &s.b.facts.kernelAPI
	if p.inRecord && p.recordLine(l, t) {
		return
	}
	if !containsAny(t, "API ", "Output", "\"function_name\"", "\"execution_status\"", "\"exception\"", "ump", "input arguments", "_count=", "_level", ".pt", ".safetensors", "metadata.json", "KERNEL_API_", "FLASHINFER_") {
		return
	}
	switch {
	case strings.Contains(t, "API Call:"):
		if m := reKAPICall.FindStringSubmatch(t); m != nil {
			p.endRecord()
			s.format("kernel_api_log")
			ev := l.ev(s)
			k.lastCall, k.lastCallEv, k.lastDone, k.source = clip(strings.TrimSpace(m[2]), 300), &ev, false, strings.TrimSuffix(m[1], " Kernel")
			k.curCall, k.curEv = k.lastCall, &ev
			k.args = k.args[:0]
			k.calls++
			k.logFile = s.fileName(l.file)
			k.pid = 0
			if m := reLogFilePID.FindStringSubmatch(k.logFile); m != nil {
				k.pid = atoiDef(m[2], 0)
				if lv := atoiDef(m[1], 0); lv > k.level {
					k.level = lv
				}
			} else if m := reLogFileRank.FindStringSubmatch(k.logFile); m != nil {
				k.pid = atoiDef(m[1], 0)
			}
			if k.level == 0 {
				k.level = 1
			}
			p.inRecord = true
		}
		return
	case strings.Contains(t, "Kernel API Exception:"):
		if m := reKAPIExc.FindStringSubmatch(t); m != nil {
			p.endRecord()
			s.format("kernel_api_log")
			ev := l.ev(s)
			k.exceptionAPI, k.exceptionEv = m[1], &ev
			if m[2] != "" {
				k.exceptionMsg = m[2] + ": " + m[3]
			}
			if k.lastCall == m[1] {
				k.lastDone = false
			}
		}
		return
	}
	if m := findIf(t, "ump", reDumpedTo); m != nil {
		if k.level < 10 {
			k.level = 10
		}
		out := m[1] == "outputs" || m[2] == "Outputs"
		p.s.noteDump(strings.TrimRight(m[3], ".,"), "", "", !out, out, l.ev(s), false)
	} else if strings.Contains(t, "Tensor dump skipped") {
		k.graphSkipped = true
	} else if m := reDumpPath.FindStringSubmatch(t); m != nil && !strings.ContainsAny(t, "\"<>") {
		// a path listing (find / ls -R / crash_diagnostics crash_dumps)
		f := m[2]
		p.s.noteDump(m[1], "", "", strings.HasPrefix(f, "inputs"), strings.HasPrefix(f, "outputs"), l.ev(s), strings.HasPrefix(f, "metadata"))
	}
	if m := findIf(t, "_DUMP_", reDumpFilter); m != nil {
		k.dumpFilter = m[1] + "=" + strings.Trim(m[2], `"'`)
	}
	if m := findIf(t, "LOGLEVEL=", reLevelEnv); m != nil {
		if lv := atoiDef(m[1], 0); lv > k.level {
			k.level = lv
		}
	}
	if strings.Contains(t, "\"function_name\"") {
		k.dumpFunc = submatch(reMetaFunc, t)
		s.format("kernel_api_dump_metadata")
	}
	if strings.Contains(t, "\"execution_status\"") {
		k.dumpStatus = submatch(reMetaStat, t)
	}
	if strings.Contains(t, "\"exception\"") {
		if m := reMetaExc.FindStringSubmatch(t); m != nil && k.exceptionMsg == "" {
			k.exceptionMsg = m[1] + ": " + m[2]
		}
	}
	if m := findIf(t, "_level", reLogFilePID); m != nil {
		s.b.facts.notes = appendCap(s.b.facts.notes, "kernel-API log files are named by process id (%i = pid "+m[2]+"), not by rank: map pid → rank from other lines", 8)
	}
}

// recordLine reads a line inside a call record; false hands it back to the
// record-start logic.
func (p *kernelAPIParser) recordLine(l *line, t string) bool {
	k := &p.s.b.facts.kernelAPI
	switch {
	case strings.Contains(t, "API Call:"), strings.Contains(t, "API Exception:"), strings.HasPrefix(t, "Dumped "), strings.Contains(t, "dumped to:"):
		return false
	case strings.HasPrefix(t, "====="):
		if k.section == 'o' {
			p.endRecord() // FlashInfer closes a record with a rule after the output
		}
		return true
	case strings.HasPrefix(t, "-----"):
		return true
	case strings.HasPrefix(t, "Positional input arguments:"), strings.HasPrefix(t, "Keyword input arguments:"), strings.HasPrefix(t, "Default parameters"):
		p.flushArg()
		k.section = 'i'
		if k.level < 3 {
			k.level = 3
		}
		return true
	case strings.HasPrefix(t, "Output:"), strings.HasPrefix(t, "Output value:"):
		p.flushArg()
		k.section = 'o'
		k.lastDone = true
		return true
	case t == "" || strings.HasPrefix(t, "(No explicit arguments)"):
		return true
	}
	if k.section == 0 {
		// level 1: the record is the call line alone
		p.endRecord()
		return false
	}
	if m := reArgStart.FindStringSubmatch(t); m != nil && !kapiFields[m[1]] {
		p.flushArg()
		name := m[1]
		if k.section == 'o' && name == "return" {
			name = "return"
		}
		k.cur = &kapiArg{name: name, value: m[2]}
		p.fields(k.cur, m[2])
		return true
	}
	if k.cur != nil {
		p.fields(k.cur, t)
		return true
	}
	if t == ")" {
		return true
	}
	// anything else ends the record (the program's next output line)
	p.endRecord()
	return false
}

func (p *kernelAPIParser) fields(a *kapiArg, t string) {
	k := &p.s.b.facts.kernelAPI
	if m := findIf(t, "shape=", reShape); m != nil {
		a.shape = m[1]
	}
	if m := findIf(t, "dtype=", reDtype); m != nil {
		a.dtype = strings.TrimRight(m[1], ".,")
	}
	if m := findIf(t, "is_contiguous=", reContig); m != nil {
		a.contiguous = m[1]
	}
	if m := findIf(t, "nan_count=", reNaNCount); m != nil {
		a.nan = atoiDef(m[1], 0)
		if k.level < 5 {
			k.level = 5
		}
	}
	if m := findIf(t, "inf_count=", reInfCount); m != nil {
		a.inf = atoiDef(m[1], 0)
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

// crashedDump returns the last dump folder whose inputs were saved but whose
// outputs never were: the process died inside that call.
func (k *kernelAPIFact) crashedDump() *kapiDump {
	var best *kapiDump
	for i := range k.dumps {
		d := &k.dumps[i]
		inside := d.status == "inputs_saved" || d.status == "" && d.inputs && !d.outputs && !d.metadata
		if d.status == "exception" || d.status == "completed" || d.outputs {
			inside = false
		}
		if inside && (best == nil || dumpBefore(best, d)) {
			best = d
		}
	}
	return best
}

// lastDump returns the newest dump folder.
func (k *kernelAPIFact) lastDump() *kapiDump {
	var best *kapiDump
	for i := range k.dumps {
		if best == nil || dumpBefore(best, &k.dumps[i]) {
			best = &k.dumps[i]
		}
	}
	return best
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

// kernelAPIKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var kernelAPIKeywords = []string{"API ", "Output", "\"function_name\"", "\"execution_status\"", "\"exception\"", "ump", "input arguments", "_count=", "_level", ".pt", ".safetensors", "metadata.json", "KERNEL_API_", "FLASHINFER_"}
