package crash

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// ncclParser reads NCCL/RCCL debug lines, the c10d ProcessGroupNCCL watchdog
// and torchrun / elastic failure reports (docs section 12).
type ncclParser struct {
	s         *Session
	tableRank int // "rank : N (local_rank: M)" of the torchrun failure table
	tableLine int
	tablePID  int
	tableCtx  int // line of the last host / rank row: the table an exitcode row belongs to
	// a watchdog line that ends inside "WorkNCCL(" waits for the next
	// line, which holds the rest of the work (terminal-wrapped pastes)
	wrap     *line
	wrapText string
	wrapN    int // lines joined so far (a hard-wrapped paste cuts it more than once)
	// init-time verbs warnings per "host:pid", held until the file ends:
	// the same process's later "Init COMPLETE" defeats them (ncclInitWarn)
	initWarn map[string]*line
	// "Some NCCL operations have failed or timed out" with no timeout read
	// yet: a timeout at the file's end unless an NCCL error explains it
	failedOrTimedOut *line
	// RCCL's start-up advisories ('Missing "amd_iommu=on" from kernel
	// command line which can lead to system instablity or hang!'), held
	// until the file ends: they only support a transport failure found
	// elsewhere, never make one (ncclAdvisory)
	advisory []*line
	frt      *frTraceRec // open fr_trace report (frtrace.go)
	// the line of an NCCL error that relays a CUDA error: c10d prints
	// that error a few lines below ("Last error:" / "Cuda failure …")
	relayLine int
}

var (
	reWatchdog = lazyre.New(`Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?(?:, Timeout\(ms\)=(\d+))?\)(?: ran for (\d+) milliseconds)?`)
	// the watchdog's header from its c10d source stamp, for a line cut
	// before (or wrapped inside) "WorkNCCL(": without the stamp the bare
	// sentence is what troubleshooting notes and READMEs quote
	reWatchdogHead = lazyre.New(`ProcessGroupNCCL\.cpp:\d+\] (?:\[[^\]]*\] )?Watchdog caught collective operation timeout`)
	// the header cut inside its sentence at the line end (text hard-wrapped
	// at a fixed width: "…cpp:565] [Rank 0] Watchdog" / "caught collective …")
	reWatchdogCut = lazyre.New(`ProcessGroupNCCL\.cpp:\d+\] (?:\[[^\]]*\] )?Watchdog(?: caught(?: collective(?: operation(?: timeout:?)?)?)?)?\s*$`)
	reRankTag     = lazyre.New(`\[(?:PG ID \d+ PG GUID [^ \]]* )?(?:PG \d+ )?Rank (\d+)\]`)
	reWorkState   = lazyre.New(`(?:detected by watchdog at work|Timeout at NCCL work): (\d+), last enqueued NCCL work: (\d+), last completed NCCL work: (\d+)`)
	reIBStatus    = lazyre.New(`Got completion (?:from peer \S+ )?with (?:error |status=)(\d+)`)
	reIBVendor    = lazyre.New(`vendor err (\d+)`)
	// host:pid:tid [dev]; some containers log "host [dev]" without pid:tid (NVIDIA/nccl#1920)
	reNCCLLine    = lazyre.New(`^(\S+?)(?::(\d+):(\d+))? \[(\d+)\] (?:\S+ )?NCCL (INFO|WARN|TRACE|ERROR) (.*)$`)
	reRCCLVersion = lazyre.New(`RCCL version\s*:?\s*(\S+)`)
	// NCCL's init banner names the toolkit it was built for:
	// "NCCL INFO NCCL version 2.26.2+cuda12.2"
	reNCCLCUDABuild = lazyre.New(`NCCL version (\d+\.\d+\.\d+)\+cuda(\d+\.\d+)`)
	reTorchrunFail  = lazyre.New(`failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)`)
	// table rows at the line start, or run together after a ")" in a
	// paste that lost its line breaks ("rank2 (local rank: 2)exitcode: -9")
	reTableRank    = lazyre.New(`^\s*rank\s*:?\s*(\d+) \(local[_ ]rank: (\d+)\)`)
	reTableExit    = lazyre.New(`(?:^\s*|\))exitcode\s*: (-?\d+)(?: \(pid: (\d+)\))?`)
	reTableSignal  = lazyre.New(`[Ss]ignal (\d+) \((SIG\w+)\) received by PID (\d+)`)
	reTableHost    = lazyre.New(`^\s*host\s*: (\S+)`)
	reWatchdogHang = lazyre.New(`watchdog got stuck for (\d+) seconds|Heartbeat monitor timed out|detected no heartbeat of its watchdog`)
	// a caller's report of an NCCL/RCCL API call's result code: RCCL's
	// test bed ("Child process 0 fails NCCL call ncclGroupEnd with code 1")
	// and glog CHECKs ("Check failed: dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0)")
	reNCCLErrorCode = lazyre.New(`NCCL Error (\d+): (unhandled system error|unhandled cuda error|internal error|remote process exited)`)
	reNCCLCallCode  = lazyre.New(`fails NCCL call (nccl\w+) with code (\d+)`)
	reNCCLCheckCode = lazyre.New(`Check failed: (?:[\w:]+::)?(nccl\w+)\([^)]*\) == ncclSuccess \((\d+) vs\. 0\)`)
)

// ncclCallFailure is an NCCL/RCCL API call and the result code a caller
// reported for it.
type ncclCallFailure struct {
	call string
	code int
}

func extractNCCLCallFailure(t string) (ncclCallFailure, bool) {
	m := findIf(t, "fails NCCL call", reNCCLCallCode)
	if m == nil {
		m = findIf(t, "== ncclSuccess", reNCCLCheckCode)
	}
	if m == nil {
		return ncclCallFailure{}, false
	}
	return ncclCallFailure{call: m[1], code: atoiDef(m[2], 0)}, true
}

func (p *ncclParser) beginFile(*Session) {
	p.tableRank, p.tableLine, p.tablePID, p.tableCtx = -1, 0, 0, 0
	p.wrap, p.wrapText = nil, ""
	p.initWarn = nil
	p.failedOrTimedOut = nil
	p.advisory = nil
	p.frt = nil
	p.relayLine = 0
}

func (p *ncclParser) endFile() {
	keys := make([]string, 0, len(p.initWarn))
	for k := range p.initWarn {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l := p.initWarn[k]
		p.transport(l, l.text, reNCCLLine.FindStringSubmatch(l.text), "Call to ibv_")
	}
	p.initWarn = nil
	if l := p.failedOrTimedOut; l != nil {
		p.failedOrTimedOut = nil
		s := p.s
		if s.b.get(ClassCollectiveTimeout) == nil && s.b.get(ClassRCCLTransport) == nil {
			a := s.b.add(s, ClassCollectiveTimeout, l, 0.7)
			if r := abortedRank(l.text); r >= 0 {
				a.rank(r)
			}
			if strings.Contains(l.text, "communicator was aborted") {
				a.addReason("NCCL communicator aborted by c10d (a collective failed or timed out)")
			}
		}
	}
	if a := p.s.b.get(ClassRCCLTransport); a != nil && len(p.advisory) > 0 {
		for _, l := range p.advisory {
			a.evidence(l.ev(p.s))
		}
		a.note("RCCL's start-up check found the IOMMU not set up for P2P (amd_iommu=on iommu=pt): a likely cause of the transport failure")
	}
	p.advisory = nil
	if p.wrap != nil {
		w, _ := extractWatchdog(p.wrapText)
		p.s.applyWatchdog(p.wrap, w)
		p.wrap, p.wrapText = nil, ""
	}
}

// unwrap joins the held watchdog line with the line after it — the
// terminal cut anywhere, even inside a word ("WorkNCCL(S" / "eqNum=…") or
// after a comma with the next line indented — and reports whether that
// line was the rest of the work.
func (p *ncclParser) unwrap(t string) bool {
	held, text := p.wrap, p.wrapText
	p.wrap, p.wrapText = nil, ""
	rest := strings.TrimLeft(t, " \t")
	for _, sep := range []string{"", " "} {
		w, ok := extractWatchdog(text + sep + rest)
		if ok && w.seq >= 0 {
			p.wrapN = 0
			p.s.applyWatchdog(held, w)
			return true
		}
		if ok && w.open && p.wrapN < 3 {
			// still inside the sentence or the work: wait for one more line
			p.wrap, p.wrapText = held, text+sep+rest
			p.wrapN++
			return true
		}
	}
	p.wrapN = 0
	w, _ := extractWatchdog(text)
	p.s.applyWatchdog(held, w)
	return false
}

func (p *ncclParser) line(l *line) {
	t := l.text
	s := p.s
	if p.wrap != nil && p.unwrap(t) {
		return
	}
	if h, ok := extractWatchdogHang(t); ok {
		s.applyWatchdogHang(l, h)
		return
	}
	if (p.frt != nil || strings.Contains(t, "Not all ranks joining") || strings.Contains(t, "Culprit rank ")) && p.frTraceField(l) {
		return
	}
	if p.relayLine > 0 && l.no-p.relayLine <= 4 && !strings.Contains(t, "NCCL") && p.lastError(l, t) {
		p.relayLine = 0
		return
	}
	if x, ok := extractRDMARetry(t); ok && !commandLike(t) {
		s.applyRDMARetry(l, x) // rdma.go
		return
	}
	if strings.Contains(t, "NCCL") || strings.Contains(t, "RCCL") || strings.Contains(t, "ccl") || strings.Contains(t, "Watchdog") || strings.Contains(t, "Got completion ") {
		if p.nccl(l) {
			return
		}
	}
	if !containsAny(t, "rank", "exitcode", "ignal ", "host") {
		return
	}
	if m := reTorchrunFail.FindStringSubmatch(t); m != nil {
		s.format("torchrun")
		s.exitCode(l, atoiDef(m[1], 0), atoiDef(m[2], -1), atoiDef(m[3], 0))
		return
	}
	for _, r := range extractElasticRows(t) {
		p.tableRow(l, r)
	}
}

// tableRow is the rule for one failure-table row: the rank row opens an
// entry, the exit code (or the traceback's signal) within a few lines
// belongs to it. An exitcode row with no host / rank row in the 4 lines
// before it is no table's (pytorch#175254 quotes the format in a PR text).
func (p *ncclParser) tableRow(l *line, r elasticRow) {
	s := p.s
	switch r.field {
	case "host":
		p.tableCtx = l.no
	case "rank":
		s.format("torchrun")
		p.tableRank, p.tableLine, p.tableCtx = r.a, l.no, l.no
	case "exitcode":
		if p.tableCtx == 0 || l.no-p.tableCtx > 4 {
			// a row without its table (host, rank rows before it): text
			// quoting the format — a PR description, docs — not a failure
			return
		}
		rank := -1
		if p.tableRank >= 0 && l.no-p.tableLine <= 4 {
			rank = p.tableRank
		}
		p.tablePID = r.b
		s.exitCode(l, r.a, rank, p.tablePID)
	case "signal":
		rank := -1
		if p.tableRank >= 0 && l.no-p.tableLine <= 6 {
			rank = p.tableRank
		}
		s.exitCode(l, -r.a, rank, r.b)
	}
}

// elasticRow is one row of torch.distributed.elastic's ChildFailedError
// table: "rank      : 7 (local_rank: 7)" (a = rank, b = local rank),
// "exitcode  : -11 (pid: 5277) (SIGSEGV)" (a = exit code, b = pid),
// "host      : node1" (host), or the traceback's "Signal 6 (SIGABRT)
// received by PID 1234" (field signal: a = signal number, b = pid).
type elasticRow struct {
	field string
	a, b  int
	host  string
}

func extractElasticRow(t string) (elasticRow, bool) {
	if rows := extractElasticRows(t); len(rows) > 0 {
		return rows[0], true
	}
	return elasticRow{}, false
}

// extractElasticRows reads every row of a line, in order: one for a clean
// table, several when a paste ran the fields together.
func extractElasticRows(t string) []elasticRow {
	var rows []elasticRow
	if m := reTableRank.FindStringSubmatch(t); m != nil {
		rows = append(rows, elasticRow{field: "rank", a: atoiDef(m[1], -1), b: atoiDef(m[2], -1)})
	}
	if m := reTableExit.FindStringSubmatch(t); m != nil {
		rows = append(rows, elasticRow{field: "exitcode", a: atoiDef(m[1], 0), b: atoiDef(m[2], 0)})
	}
	if strings.Contains(t, "ignal ") {
		if m := reTableSignal.FindStringSubmatch(t); m != nil {
			rows = append(rows, elasticRow{field: "signal", a: atoiDef(m[1], 0), b: atoiDef(m[3], 0)})
		}
	}
	if len(rows) == 0 {
		if m := reTableHost.FindStringSubmatch(t); m != nil {
			rows = append(rows, elasticRow{field: "host", host: m[1]})
		}
	}
	return rows
}

// watchdogTimeout: c10d's "[PG … Rank R] Watchdog caught collective
// operation timeout: WorkNCCL(SeqNum=S, OpType=OP[, NumelIn=…, NumelOut=…]
// [, Timeout(ms)=T]) ran for M milliseconds before timing out." in every
// PyTorch version's wording (see TestExtractWatchdog).
type watchdogTimeout struct {
	rank              int // -1 when the line has no [Rank N] tag
	seq               int
	op                string
	numelIn, numelOut string
	timeoutMS, ranMS  string
	// open: the line ends inside "WorkNCCL(" (a terminal or paste wrapped
	// it); the rest of the work, SeqNum and OpType, is on the next line
	open bool
}

func extractWatchdog(t string) (watchdogTimeout, bool) {
	if !strings.Contains(t, "Watchdog") {
		return watchdogTimeout{}, false
	}
	var w watchdogTimeout
	if !strings.Contains(t, "Watchdog caught collective operation timeout: ") {
		if reWatchdogCut.MatchString(t) {
			w = watchdogTimeout{rank: -1, seq: -1, open: true}
			if r := submatchIf(t, "Rank ", reRankTag); r != "" {
				w.rank = atoiDef(r, -1)
			}
			return w, true
		}
		if !strings.Contains(t, "Watchdog caught") {
			return watchdogTimeout{}, false
		}
	}
	if m := reWatchdog.FindStringSubmatch(t); m != nil {
		w = watchdogTimeout{rank: -1, seq: atoiDef(m[1], -1), op: m[2], numelIn: m[3], numelOut: m[4], timeoutMS: m[5], ranMS: m[6]}
	} else if reWatchdogHead.MatchString(t) || strings.Contains(t, "Watchdog caught collective operation timeout: WorkNCCL(") {
		// cut after the header (a progress bar glued before it, a paste
		// cut short) or wrapped inside the work
		w = watchdogTimeout{rank: -1, seq: -1}
		if i := strings.Index(t, "WorkNCCL("); i >= 0 && !strings.Contains(t[i:], ")") {
			w.open = true
		}
		if !w.open && !reWatchdogHead.MatchString(t) {
			return watchdogTimeout{}, false
		}
	} else {
		return watchdogTimeout{}, false
	}
	if r := submatchIf(t, "Rank ", reRankTag); r != "" {
		w.rank = atoiDef(r, -1)
	}
	return w, true
}

// ncclColl: one NCCL_DEBUG=INFO (SUBSYS COLL) call record,
// "host:pid:tid [dev] NCCL INFO AllReduce: opCount 1a sendbuff … count N
// datatype D op O root R comm 0x… [nranks=N] stream 0x…". opCount counts
// the calls of one communicator (comm), so two records compare only
// within corresponding communicators.
type ncclColl struct {
	host     string
	pid, dev int
	op       string
	opCount  int64
	count    int64 // elements, -1 when absent
	root     int   // -1 when absent
	comm     string
	nranks   int
}

var reNCCLColl = lazyre.New(`^(\S+):(\d+):\d+ \[(\d+)\] NCCL INFO (\w+): opCount ([0-9a-fA-F]+)(.*)$`)
var (
	reCollCount  = lazyre.New(`\bcount (\d+)`)
	reCollRoot   = lazyre.New(`\broot (\d+)`)
	reCollComm   = lazyre.New(`\bcomm (0x[0-9a-fA-F]+)`)
	reCollNranks = lazyre.New(`\[nranks=(\d+)\]`)
)

func extractNCCLColl(t string) (ncclColl, bool) {
	m := findIf(t, "opCount", reNCCLColl)
	if m == nil {
		return ncclColl{}, false
	}
	oc, err := strconv.ParseInt(m[5], 16, 64)
	if err != nil {
		return ncclColl{}, false
	}
	rest := m[6]
	c := ncclColl{host: m[1], pid: atoiDef(m[2], 0), dev: atoiDef(m[3], -1), op: m[4], opCount: oc, count: -1, root: -1,
		comm: submatch(reCollComm, rest), nranks: atoiDef(submatch(reCollNranks, rest), 0)}
	if v := submatch(reCollCount, rest); v != "" {
		c.count, _ = strconv.ParseInt(v, 10, 64)
	}
	if v := submatch(reCollRoot, rest); v != "" {
		c.root = atoiDef(v, -1)
	}
	return c, true
}

func (p *ncclParser) nccl(l *line) bool {
	t := l.text
	s := p.s
	f := &s.b.facts
	w, ok := extractWatchdog(t)
	text := t
	if !ok && strings.Contains(l.raw, "ProcessGroupNCCL.cpp:") {
		// the c10d stamp is a log prefix the normaliser strips from text
		w, ok = extractWatchdog(l.raw)
		text = l.raw
	}
	if ok {
		if w.open {
			p.wrap, p.wrapText, p.wrapN = keepLine(l), text, 0
			return true
		}
		s.applyWatchdog(l, w)
		return true
	}
	if m := reWorkState.FindStringSubmatch(t); m != nil {
		a := s.b.add(s, ClassCollectiveTimeout, l, 0.9)
		a.seq(atoiDef(m[1], -1))
		if a.f.SeqNum == nil {
			a.f.SeqNum = intp(atoiDef(m[1], -1))
		}
		a.detail("last_enqueued_work", m[2])
		a.detail("last_completed_work", m[3])
		if r := submatch(reRankTag, t); r != "" {
			a.rank(atoiDef(r, -1))
		}
		return true
	}
	if extractFRDumpStart(t) { // frdump.go
		if p.failedOrTimedOut == nil && s.b.get(ClassCollectiveTimeout) == nil {
			p.failedOrTimedOut = keepLine(l)
		}
		return true
	}
	if strings.Contains(t, "dump signal due to a collective timeout") {
		// a rank told to dump because some rank timed out: the timeout is
		// known, the receiving rank is no failing rank. Without c10d's
		// rank tag the sentence is quoted prose.
		if submatch(reRankTag, t) != "" && s.b.get(ClassCollectiveTimeout) == nil {
			s.b.add(s, ClassCollectiveTimeout, l, 0.7)
		}
		return true
	}
	if containsAny(t, "Some NCCL operations have failed or timed out", "Process group watchdog thread terminated with exception", "Exception raised from checkTimeout", "To avoid data inconsistency, we are taking the entire process down", "WorkNCCL::checkTimeout(", "NCCL communicator was aborted") {
		if a := s.b.get(ClassCollectiveTimeout); a != nil || watchdogTimedOut(t) {
			a = s.b.add(s, ClassCollectiveTimeout, l, 0.7)
			if r := abortedRank(t); r >= 0 {
				a.rank(r)
			}
		} else if containsAny(t, "failed or timed out", "communicator was aborted") && !strings.Contains(t, "NCCL error") && p.failedOrTimedOut == nil {
			// c10d's "NCCL communicator was aborted on rank N." (pytorch#64241)
			// says the watchdog or an error handler aborted it, not why:
			// failed or timed out: a timeout unless the file shows the
			// NCCL error that failed it (endFile decides)
			p.failedOrTimedOut = keepLine(l)
		}
		if !strings.Contains(t, "NCCL error") {
			return true
		}
		// the watchdog caught an NCCL error, not a timeout: read it below
	}
	if m := reRCCLVersion.FindStringSubmatch(t); m != nil {
		f.notes = appendCap(f.notes, "RCCL version "+m[1], 8)
		s.format("rccl_build") // RCCL runs on ROCm: the advice speaks ROCm
		return true
	}
	if strings.Contains(t, "+cuda") {
		if m := reNCCLCUDABuild.FindStringSubmatch(t); m != nil {
			// a CUDA build of NCCL: the system is NVIDIA's, so the advice
			// names CUDA's tools even when no other NVIDIA-only format is in
			// the input (a plain NCCL_DEBUG=INFO log)
			s.format("nccl_cuda_build")
			return true
		}
	}
	if c, ok := extractNCCLCallFailure(t); ok {
		// the library's own failure code for a call (init, group end, a
		// collective): the communicator or its transport failed
		if r := lookupNCCLCode(c.code); r != nil && r.class != "" {
			a := s.b.add(s, r.class, l, 0.7)
			a.addReason(c.call + " returned " + r.name + " (" + strconv.Itoa(c.code) + ")")
			a.detail("nccl_call", c.call)
			a.detail("nccl_result", r.name)
			a.ncclRelayed(r.cuda)
		}
		return true
	}
	m := reNCCLLine.FindStringSubmatch(t)
	warn := m != nil && (m[5] == "WARN" || m[5] == "ERROR")
	// the IB transport's completion error is NCCL's own wording even when
	// the paste dropped the debug prefix (an issue title: NVIDIA/nccl#1664;
	// NCCL ≤ 2.8's "Got completion with error N" without the peer:
	// NVIDIA/nccl#426, #214)
	bareIB := m == nil && strings.Contains(t, "NET/IB") && (strings.Contains(t, "Got completion from peer") || strings.Contains(t, "Got completion with error"))
	res, hasRes := extractNCCLResult(t)
	if m == nil && !bareIB && !hasRes && !strings.Contains(t, "ncclUnhandledCudaError") && !strings.Contains(t, "NCCL error") && !bareNCCLError(t) && !bareWarn(t) {
		return false
	}
	if m != nil {
		s.format("nccl_debug")
	}
	if !warn && m != nil {
		if p.initWarn != nil && strings.Contains(m[6], "Init COMPLETE") {
			delete(p.initWarn, m[1]+":"+m[2])
		}
		return true
	}
	row := ncclWarnRow(t)
	if row == nil && hasRes && res.res != nil && res.res.class != "" {
		// a result report in a wording no row holds (nccl-tests' "NCCL
		// failure …", c10d's "ncclInvalidUsage: …" line alone)
		row = &ncclWarn{sub: res.res.name, reason: res.res.name, relay: res.res.cuda}
	}
	if row == nil || row.benign {
		return true
	}
	if row.advisory {
		if len(p.advisory) < 4 {
			p.advisory = append(p.advisory, keepLine(l))
		}
		return true
	}
	if row.held && m != nil && m[2] != "" {
		// hold it: NCCL falls back (IB → socket) and may still
		// complete the init of this process
		if p.initWarn == nil {
			p.initWarn = map[string]*line{}
		}
		if k := m[1] + ":" + m[2]; p.initWarn[k] == nil && len(p.initWarn) < maxRanks {
			p.initWarn[k] = keepLine(l)
		}
		return true
	}
	a := p.transport(l, t, m, row.reason)
	if row.kind != "" && a.details["transport"] == "" {
		a.detail("transport", row.kind)
	}
	if hasRes {
		if res.res != nil {
			a.detail("nccl_result", res.res.name)
		}
		a.detail("nccl_version", res.version)
	}
	relay := row.relay || hasRes && res.res != nil && res.res.cuda
	a.ncclRelayed(relay)
	if hasRes {
		p.relayLine = l.no
	}
	if relay {
		p.relayCUDA(l, t)
	}
	return true
}

// lastError reads c10d's "Last error:" block, a line or two under its
// "NCCL error in: …" / "ncclX: …" lines: the relayed CUDA error ("Cuda
// failure 1 'invalid argument'") or the WARN text NCCL kept ("Duplicate
// GPU detected : rank 3 and rank 0 both on CUDA device f000",
// Megatron-LM#661, verl#161), which names what failed.
func (p *ncclParser) lastError(l *line, t string) bool {
	if p.relayCUDA(l, t) {
		return true
	}
	row := ncclWarnRow(t)
	a := p.s.b.get(ClassRCCLTransport)
	if row == nil || row.advisory || row.benign || a == nil || lookupNCCLName(row.sub) != nil || strings.HasPrefix(row.sub, "NCCL") {
		return false
	}
	a.evidence(l.ev(p.s))
	a.addReason(row.reason)
	a.detail("last_error", strings.TrimSpace(t))
	if row.kind != "" && a.details["transport"] == "" {
		a.detail("transport", row.kind)
	}
	return true
}

// relayCUDA reads the CUDA / HIP error an NCCL error relays ("Cuda
// failure 'out of memory'" on the WARN line, or c10d's "Last error:" block
// under "ncclUnhandledCudaError: …"): an error that names a GPU failure
// of its own (out of memory, an illegal address …) is that finding, the
// root of the NCCL error (relayCauses).
func (p *ncclParser) relayCUDA(l *line, t string) bool {
	f, ok := extractNCCLCudaFailure(t)
	if !ok {
		return false
	}
	s := p.s
	if c := ncclRelayClass(f); c != "" {
		a := s.b.add(s, c, l, 0.8)
		a.addReason(f.text + " (relayed by NCCL)")
		a.detail("cuda_error", f.name)
	}
	if a := s.b.get(ClassRCCLTransport); a != nil {
		a.evidence(l.ev(s))
		a.detail("relayed_error", f.text)
	}
	return true
}

// bareWarn: NCCL's WARN with a cut debug prefix — "[0] misc/socket.cc:71
// NCCL WARN …" (NVIDIA/nccl#1612), "socket.h:415 NCCL WARN …", a net
// plugin's function:line ("register_mr_buffers:544 NCCL WARN NET/OFI …",
// aws/aws-ofi-nccl#584) — its source location or device bracket before
// it; a WARN quoted in notes or a README ("- `NCCL WARN Bootstrap : no
// socket interface found`") has neither.
func bareWarn(t string) bool {
	i := strings.Index(t, " NCCL WARN ")
	if i <= 0 {
		return false
	}
	return t[i-1] == ']' || reSrcLoc.MatchString(t[:i])
}

// reSrcLoc: a C/C++ source location, or a plugin's function:line at the
// start of the line or after the device bracket (prose that quotes the
// function:line has words before it)
var reSrcLoc = lazyre.New(`(?:\.(?:cc|cpp|cu|c|h|hpp)|(?:^|\] )[a-z_][a-z0-9_]*):\d+$`)

var reAbortedOnRank = lazyre.New(`communicator was aborted on rank (\d+)`)

// abortedRank: the rank c10d's tag or its "aborted on rank N" names.
func abortedRank(t string) int {
	if r := submatch(reRankTag, t); r != "" {
		return atoiDef(r, -1)
	}
	if r := submatchIf(t, "aborted on rank", reAbortedOnRank); r != "" {
		return atoiDef(r, -1)
	}
	return -1
}

// reDefaultPGRankTag: c10d's rank tag of the default process group — the
// older "[Rank N]" and "[PG 0 Rank N]", 2.4+'s "[PG ID 0 PG GUID
// 0(default_pg) Rank N]"; a subgroup's tag counts ranks inside that group.
var reDefaultPGRankTag = lazyre.New(`\[(?:PG ID 0 PG GUID 0(?:\(default_pg\))? |PG 0 (?:\(default_pg\) )?)?Rank (\d+)\]`)

// extractWatchdogThreadRank: c10d's watchdog thread ended by an error it
// found on its own rank's work — "[Rank 0] NCCL watchdog thread terminated
// with exception: CUDA error: …" (≤ 2.2), "[PG ID 0 PG GUID 0(default_pg)
// Rank 1] Process group watchdog thread terminated with exception: …" —
// names the global rank that hit it; -1 otherwise (a subgroup's rank).
func extractWatchdogThreadRank(t string) int {
	if !strings.Contains(t, "watchdog thread terminated with exception") {
		return -1
	}
	if r := submatchIf(t, "Rank ", reDefaultPGRankTag); r != "" {
		return atoiDef(r, -1)
	}
	return -1
}

// watchdogTimedOut: the watchdog's line says a collective timed out — its
// timeout check threw ("Exception raised from checkTimeout", a
// WorkNCCL::checkTimeout frame), a "dump signal due to a collective
// timeout", or "timed out" itself. "Some NCCL operations have failed or
// timed out" says neither: it follows an NCCL error as well.
func watchdogTimedOut(t string) bool {
	return strings.Contains(t, "checkTimeout") || strings.Contains(t, "collective timeout") ||
		strings.Contains(strings.ReplaceAll(t, "failed or timed out", ""), "timed out")
}

// bareNCCLError: NCCL's error report without the debug prefix — PyTorch's
// "ncclRemoteError: A call failed …" / "Last error:" block, the socket
// transport's "socketProgressOpt: Call to recv … failed", and the
// "NCCL Error 2: unhandled system error" of older torch and cupy.
func bareNCCLError(t string) bool {
	return containsAny(t, "ncclRemoteError", "ncclSystemError", "ncclInternalError", "socketProgressOpt: ", "socketProgress: ") ||
		strings.Contains(t, "NCCL Error ") && reNCCLErrorCode.MatchString(t)
}

// ncclInitWarn: a verbs call failing while NCCL probes the network at
// init ("Call to ibv_open_device failed", "Call to ibv_get_async_event
// failed"). Defeater: when the same host:pid later logs "Init COMPLETE",
// NCCL fell back (NET/Socket) and the communicator works — the warning is
// init noise, not the failure (NVIDIA/nccl#925 shows the failing case
// without a completed init; horovod#685 the socket fallback). RCCL's
// start-up check 'Missing "amd_iommu=on" from kernel command line' is
// advice, not a failure (ncclAdvisory).
func ncclInitWarn(e string) bool { return e == "Call to ibv_" }

// ncclAdvisory: RCCL's start-up advice ('Missing "amd_iommu=on" from kernel
// command line which can lead to system instablity or hang!', printed with
// its siblings for "iommu=pt" and HSA_FORCE_FINE_GRAIN_PCIE on every init,
// ROCm/rccl#1026, #908) says what may go wrong, not that anything did: it
// supports a transport failure of the same file, alone it is no finding.
func ncclAdvisory(e string) bool { return strings.HasPrefix(e, "Missing") }

// transport records one transport error line (m: its NCCL debug prefix,
// nil for a bare line).
func (p *ncclParser) transport(l *line, t string, m []string, e string) *agg {
	s := p.s
	conf := 0.8
	if strings.HasPrefix(e, "Missing") {
		conf = 0.35
	}
	a := s.b.add(s, ClassRCCLTransport, l, conf)
	if strings.HasPrefix(a.f.Reason, "Missing") && !strings.HasPrefix(e, "Missing") {
		a.f.Reason = e
	}
	if e == "Got completion from peer" {
		// NET/IB (and the IBP plugin's "NET/IBP:") completion
		// errors: the RDMA fabric or the peer failed (seed 000
		// pattern 5), in both wordings "with error 4, opcode …" and
		// "with status=12 opcode=…"
		e = "NET/IB completion error"
		if st := submatch(reIBStatus, t); st != "" {
			e += " (status " + st + ")"
			a.detail("ib_status", st)
		}
		if v := submatch(reIBVendor, t); v != "" {
			a.detail("ib_vendor_err", v)
		}
		a.detail("transport", "net_ib")
	}
	a.addReason(e)
	if m != nil {
		a.setStr(&a.f.Host, m[1])
		a.setPID(atoiDef(m[2], 0))
		a.detail("nccl_device", m[4])
		a.reported(atoiDef(m[2], 0), l.ev(s)) // ncclreporter.go
	}
	if strings.Contains(t, "/hipify/") || strings.Contains(t, "RCCL") {
		a.detail("library", "RCCL")
	}
	return a
}

// watchdogHang is ProcessGroupNCCL's heartbeat monitor firing: the
// watchdog itself made no progress ("watchdog got stuck for 480 seconds",
// "Heartbeat monitor timed out!"), i.e. a NCCL/CUDA call blocked it — a
// hang in the collectives' path rather than one collective's timeout. The
// message may be wrapped by the terminal, so the PG / rank tag is optional.
type watchdogHang struct {
	rank    int // -1 when the line has no [Rank N] tag
	seconds int // 0 for the heartbeat wordings that give none
}

func extractWatchdogHang(t string) (watchdogHang, bool) {
	m := findIf(t, "eartbeat", reWatchdogHang)
	if m == nil {
		m = findIf(t, "got stuck", reWatchdogHang)
	}
	if m == nil {
		return watchdogHang{}, false
	}
	h := watchdogHang{rank: -1, seconds: atoiDef(m[1], 0)}
	if r := submatchIf(t, "Rank ", reRankTag); r != "" {
		h.rank = atoiDef(r, -1)
	}
	return h, true
}

// applyWatchdogHang: the heartbeat monitor's verdict is a collective hang
// on that rank (collective_timeout), below a watchdog line's confidence: it
// names no collective.
func (s *Session) applyWatchdogHang(l *line, h watchdogHang) {
	if commandLike(l.text) {
		return
	}
	s.format("nccl_watchdog")
	a := s.b.add(s, ClassCollectiveTimeout, l, 0.8)
	if h.seconds > 0 {
		a.addReason("ProcessGroupNCCL watchdog stuck for " + strconv.Itoa(h.seconds) + " s (heartbeat monitor): a NCCL/CUDA call blocked the collectives")
		a.detail("watchdog_stuck_s", strconv.Itoa(h.seconds))
	} else {
		a.addReason("ProcessGroupNCCL heartbeat monitor timed out: a NCCL/CUDA call blocked the collectives")
	}
	if h.rank >= 0 {
		a.rank(h.rank)
	}
}

// applyWatchdog: a watchdog timeout is a collective_timeout on its rank;
// whether it is the cause or a consequence (a peer's fault, a rank that
// never called the collective) is decided over all facts (culprit.go,
// incident.go).
func (s *Session) applyWatchdog(l *line, w watchdogTimeout) {
	s.format("nccl_watchdog")
	a := s.b.add(s, ClassCollectiveTimeout, l, 0.95)
	if w.seq >= 0 {
		if a.f.SeqNum == nil {
			a.f.SeqNum = intp(w.seq)
		}
		a.seq(w.seq)
	}
	if w.op != "" {
		a.setStr(&a.f.OpType, w.op)
	}
	a.addReason("Watchdog caught collective operation timeout")
	a.detail("numel_in", w.numelIn)
	a.detail("timeout_ms", w.timeoutMS)
	a.detail("ran_for_ms", w.ranMS)
	if w.rank >= 0 {
		a.rank(w.rank)
	}
}

// exitCode records a process exit status: SIGKILL → host_oom_kill,
// SIGBUS → host_oom_kill (shared memory, sigbus.go), SIGSEGV →
// host_segfault, SIGABRT → attached to the primary GPU finding.
func (s *Session) exitCode(l *line, code, rank, pid int) {
	f := &s.b.facts
	sig := exitSignal(code)
	if rank < 0 {
		rank = l.rank
	}
	ef := exitFact{code: code, hasCode: true, signal: sig, rank: rank, pid: pid, ev: l.ev(s)}
	switch sig {
	case "SIGKILL":
		if rank < 0 && pid <= 0 && schedulerKill(f, s.b.get(ClassHostOOMKill)) { // slurm.go
			f.notes = appendCap(f.notes, "the exit status "+itoa(code)+" (line "+itoa(l.no)+") follows Slurm's cancellation (line "+itoa(f.schedCancel.Line)+"): the scheduler ended the job, not the OOM killer", 8)
			break
		}
		if rank < 0 && pid <= 0 && mpiTeardown(f, s.b.get(ClassHostOOMKill), sig) { // mpiabort.go
			f.notes = appendCap(f.notes, "the exit status "+itoa(code)+" (line "+itoa(l.no)+") follows MPI_Abort (line "+itoa(f.mpiAbort.Line)+"): mpirun's teardown, not the OOM killer", 8)
			break
		}
		if teardownKill(f, s.b.get(ClassHostOOMKill), rank, pid) {
			// defeater: the job's own 137 after a child failed is the
			// launcher killing its process tree (childFailureWords), like a
			// bare "Killed" there (deathSignal); a process it names is not
			f.notes = appendCap(f.notes, "the exit status "+itoa(code)+" (line "+itoa(l.no)+") follows \""+clip(f.childFailure.Text, 80)+"\" (line "+itoa(f.childFailure.Line)+"): the launcher killed its own process tree after a child failed, not the OOM killer", 8)
			break
		}
		a := s.b.add(s, ClassHostOOMKill, l, 0.6)
		a.setExit(code)
		a.setStr(&a.f.Signal, sig)
		a.rank(rank)
		if a.f.PID == nil && pid > 0 {
			a.detail("killed_pid", strconv.Itoa(pid))
		}
	case "SIGBUS":
		a := s.applySIGBUS(l, code, true, "", "", false) // sigbus.go
		a.rank(rank)
		if pid > 0 {
			a.setPID(pid)
		}
	case "SIGSEGV":
		a := s.b.add(s, ClassHostSegfault, l, 0.75)
		a.setExit(code)
		a.setStr(&a.f.Signal, sig)
		a.rank(rank)
		if pid > 0 {
			a.setPID(pid)
		}
	case "SIGABRT", "SIGILL", "SIGFPE", "SIGTRAP":
		f.aborts = append(f.aborts, ef)
		if len(f.aborts) > 16 {
			f.aborts = f.aborts[1:]
		}
	}
	if len(f.exits) < 32 {
		f.exits = append(f.exits, ef)
	}
}

// teardownKill: a SIGKILL exit status of a pid the launcher force-killed
// (forcekill.go), or one that names no process (the job's or
// the container's own "exit code 137") after a supervisor saw a child die,
// with no record of memory pressure, is the launcher's teardown — SGLang
// SIGKILLs its own tree after "Received sigquit from a child process"; a
// supervisor stopping its group exits 137 without any OOM
// (mozilla/addons-server#7518, balena-os/balena-supervisor#647,
// newsboat/newsboat#2517).
func teardownKill(f *facts, oom *agg, rank, pid int) bool {
	return f.childFailure != nil && (rank < 0 && pid <= 0 || f.launcherKilled(pid)) && (oom == nil || !oom.memProof)
}

// ncclKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var ncclKeywords = append([]string{"NCCL", "RCCL", "ccl", "Watchdog", "rank", "Not all ranks joining", "Culprit rank ", "exitcode", "ignal ", "host", "watchdog got stuck", "eartbeat", "Got completion ", "Cuda failure", "HIP failure", "CUDA failure", "etry count", "RETRY_EXC_ERR"}, ncclWarnSubs()...)

// ncclWarnSubs: the catalog's wordings, for c10d's "Last error:" line that
// repeats one without NCCL's prefix (ncclParser.lastError).
func ncclWarnSubs() []string {
	subs := make([]string, 0, len(ncclWarnCatalog))
	for _, w := range ncclWarnCatalog {
		subs = append(subs, w.sub)
	}
	return subs
}
