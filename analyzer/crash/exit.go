package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// exitParser reads process exit statuses and shell/launcher death lines
// (docs section 13): "exit_code=139", "exited with code 137", "(exitcode=-6)",
// "Killed", "Aborted (core dumped)", "Segmentation fault", Slurm task lines,
// Go's "signal: aborted".
type exitParser struct {
	s    *Session
	wrap loaderWrap // a DataLoader death message cut after "by signal:" (loaderwrap.go)
	// hydraPID: the pid of Hydra's banner ("=   PID 2671 RUNNING AT
	// master-node00"), line hydraLine, for the "EXIT CODE:" two lines on
	hydraPID, hydraLine, hydraFile int
}

var (
	reExitCode   = lazyre.New(`(?i)\bexit[ _]?(?:code|status)\s*[=:]?\s*(-?\d+)\b`)
	reExitedWith = lazyre.New(`(?i)\bexited with (?:code|status) (-?\d+)`)
	reExitcodeEq = lazyre.New(`\(exitcode=(-?\d+)\)`)
	reNonZero    = lazyre.New(`returned non-zero exit status (-?\d+)`)
	reShellDeath = lazyre.New(`^(?:\S+: )?(?:line \d+: )?\s*(\d+)?\s*(Killed|Aborted|Segmentation fault|Bus error|Illegal instruction|Floating point exception)(?:\s+\(core dumped\))?(?:\s|$)`)
	reSlurm      = lazyre.New(`srun: error: (\S+): tasks? ([\d,\-]+): (Killed|Aborted|Segmentation fault|Bus error|Out Of Memory|Exited with exit code (\d+))`)
	reSlurmOOM   = lazyre.New(`Detected (\d+) oom[-_]kill events?(?:\(s\))? in (?:StepId=|step )(\S+?)\.?(?:\s|$)`)
	reGoSignal   = lazyre.New(`signal: (aborted|killed|segmentation fault)`)
	reSpawnDeath = lazyre.New(`Exception: process (\d+) terminated with signal (SIG[A-Z]+)`)
	// Hydra's (MPICH, MVAPICH, Intel MPI) banner for a rank that died:
	// "=   EXIT CODE: 139" (128+signal), and "YOUR APPLICATION TERMINATED
	// WITH THE EXIT STRING: Killed (signal 9)"
	reHydraExit = lazyre.New(`^=?\s*EXIT CODE: (\d+)\s*$|TERMINATED WITH THE EXIT STRING: .*\(signal (\d+)\)`)
	// the banner's process line: "=   PID 5318 RUNNING AT MacBook-Pro-10.local"
	reHydraPID = lazyre.New(`^=?\s*PID (\d+) RUNNING AT (\S+)`)
	reWinExc   = lazyre.New(`(?i)(?:exception code:?\s*(?:0x)?|exit(?:ed with)? code -?\d+ \(0x)(c0000005|c000001d|c00000fd|c0000409)\b`)
	// a supervisor reporting a dead child with its pid, in the wordings of
	// SGLang ("Child process unexpectedly failed with exitcode=134. pid=71533"),
	// vLLM's multiproc executor ("Worker VllmWorkerProcess pid 1234 died,
	// exit code: -9") and Python's multiprocessing ("exitcode=-11, pid=…")
	reChildExit = lazyre.New(`(?i)(?:child|worker|process|proc)\b.*?(?:exit ?code[=: ]\s*(-?\d+)[.,;]?\s*pid[=:]?\s*(\d+)|pid[=: ]\s*(\d+)\)?,? died,? exit ?code[=:]?\s*(-?\d+))`)
)

// childFailureWords mark a supervisor that saw a child die: a later bare
// "Killed" is the launcher tearing down its process tree (SGLang kills itself
// with SIGKILL after "Received sigquit from a child process"), not the
// kernel's OOM killer.
var childFailureWords = []string{"Received sigquit from a child", "Child process unexpectedly failed", "died unexpectedly", "child failed", "closing signal SIGTERM", "proc died"}

var deathSignal = map[string]string{
	"Killed": "SIGKILL", "Aborted": "SIGABRT", "Segmentation fault": "SIGSEGV", "Bus error": "SIGBUS",
	"Illegal instruction": "SIGILL", "Floating point exception": "SIGFPE",
	"aborted": "SIGABRT", "killed": "SIGKILL", "segmentation fault": "SIGSEGV",
	"Out Of Memory": "SIGKILL", // srun: the step's memory cgroup killed the task
}

var signalCode = map[string]int{"SIGKILL": 9, "SIGABRT": 6, "SIGSEGV": 11, "SIGBUS": 7, "SIGILL": 4, "SIGFPE": 8}

func (p *exitParser) beginFile(*Session) { p.wrap, p.hydraPID = loaderWrap{}, 0 }
func (p *exitParser) endFile()           {}

func (p *exitParser) line(l *line) {
	t := l.text
	s := p.s
	// the prefilter hands this parser only lines holding one of
	// exitKeywords; the same table gates a line handed to it otherwise
	if !containsAny(t, exitKeywords...) {
		return
	}
	if x, ok := extractGunicornDeath(t); ok { // gunicorn.go; before commandLike: its SIGKILL line ends in a question
		s.format("gunicorn")
		s.deathSignal(l, x.sig, 0, false, "", "gunicorn worker")
		s.deathNamed(l, x.sig, x.pid)
		return
	}
	if commandLike(t) {
		return // a command or a question names evidence, it is none (container.go)
	}
	if extractLoaderWrapHead(t) || extractOMPIWrapHead(t) {
		p.wrap = loaderWrap{head: t, file: l.file, no: l.no}
		return
	}
	if whole, ok := p.wrap.join(l); ok {
		j := *l
		j.text, j.raw = whole, whole
		l, t = &j, whole
	}
	if m := findIf(t, "RUNNING AT ", reHydraPID); m != nil {
		p.hydraPID, p.hydraLine, p.hydraFile = atoiDef(m[1], 0), l.no, l.file
		return
	}
	if code, ok := extractHydraExit(t); ok {
		s.format("mpi_hydra")
		pid := 0
		if p.hydraPID > 0 && l.file == p.hydraFile && l.no-p.hydraLine <= 3 {
			pid = p.hydraPID // the banner names the rank's process above its exit code
		}
		p.hydraPID = 0
		s.exitCode(l, code, -1, pid)
		return
	}
	if x, ok := extractMPIAbort(t); ok { // mpiabort.go
		s.applyMPIAbort(l, x)
		return
	}
	if x, ok := extractOMPIDeath(t); ok { // ompi.go
		if mpiTeardown(&s.b.facts, s.b.get(ClassHostOOMKill), x.sig) {
			f := &s.b.facts
			f.notes = appendCap(f.notes, "MPI rank "+itoa(x.rank)+" killed by "+x.sig+" (line "+itoa(l.no)+") after MPI_Abort (line "+itoa(f.mpiAbort.Line)+"): mpirun's teardown, not the OOM killer", 8)
			return
		}
		s.applyOMPIDeath(l, x)
		return
	}
	if sig := extractWindowsException(t); sig != "" {
		s.format("windows_exception")
		s.deathSignal(l, sig, 0, false, "", "")
		return
	}
	if x, ok := extractSlurmCancel(t); ok { // slurm.go
		s.applySlurmCancel(l, x)
		return
	}
	if x, ok := extractSlurmTask(t); ok {
		s.format("slurm")
		s.deathSignal(l, x.sig, x.code, x.hasCode, x.host, "Slurm task "+x.tasks)
		r := singleTask(x.tasks) // a task id is the job's global rank (SLURM_PROCID)
		if a := s.b.get(ClassHostOOMKill); a != nil && x.sig == "SIGKILL" {
			a.rank(r)
			if x.oom {
				a.memProof = true
				a.detail("constraint", "Slurm step memory cgroup limit")
			}
		}
		if f := &s.b.facts; r >= 0 && x.sig != "" && len(f.exits) < 32 {
			f.exits = append(f.exits, exitFact{code: x.code, hasCode: x.hasCode, signal: x.sig, rank: r, host: x.host, task: "Slurm task " + x.tasks, ev: l.ev(s)})
		}
		return
	}
	if x, ok := extractSystemdOOM(t); ok { // systemd.go
		s.applySystemdOOM(l, x)
		return
	}
	if unit, sig, ok := extractSystemdSignal(t); ok { // systemd.go
		s.format("systemd")
		s.deathSignal(l, sig, 0, false, "", "systemd unit "+unit)
		return
	}
	if x, ok := extractSlurmOOM(t); ok {
		s.format("slurm")
		// slurmstepd read the step cgroup's memory.events: the kernel's
		// OOM killer did kill a task, whichever later line names it
		a := s.b.add(s, ClassHostOOMKill, l, 0.9)
		a.memProof = true
		a.setStr(&a.f.Signal, "SIGKILL")
		a.detail("constraint", "Slurm step memory cgroup limit")
		a.detail("oom_kill_events", itoa(x.events))
		a.detail("slurm_step", x.step)
		return
	}
	if pid, ok := extractForceKill(t); ok {
		s.applyForceKill(l, pid)
		return
	}
	if containsAny(t, childFailureWords...) && s.b.facts.childFailure == nil {
		ev := l.ev(s)
		s.b.facts.childFailure = &ev
	}
	if x, ok := extractSpawnDeath(t); ok {
		// torch.multiprocessing.spawn: the parent reports the child the
		// signal killed (its process index is the spawned rank)
		s.format("torch_spawn")
		code := 0
		if c, ok := signalCode[x.sig]; ok {
			code = 128 + c
		}
		s.deathSignal(l, x.sig, code, code > 0, "", "spawned process "+itoa(x.index))
		return
	}
	if shm, ok := extractWorkerBusError(t); ok { // sigbus.go
		s.applySIGBUS(l, 0, false, "", "DataLoader worker", shm)
		return
	}
	if d, ok := extractSignalDeath(l.raw, t); ok { // deathlines.go
		s.deathSignal(l, d.sig, 0, false, "", "")
		s.deathNamed(l, d.sig, d.pid)
		return
	}
	if c, ok := extractChildExit(t); ok {
		s.exitCode(l, c.code, -1, c.pid)
		return
	}
	if code, ok := extractLauncherReturn(t); ok {
		s.format("deepspeed_launcher")
		s.exitCode(l, code, -1, 0)
		return
	}
	if d, ok := extractCalledProcessDeath(t); ok {
		s.format("launcher")
		s.exitCode(l, d.code, d.rank, 0)
		return
	}
	if m := findIf(t, "(exitcode=", reExitcodeEq); m != nil {
		s.exitCode(l, atoiDef(m[1], 0), -1, 0)
		return
	}
	if strings.Contains(t, "exitcode") {
		return // torchrun forms are handled by the NCCL/torchrun parser
	}
	if m := findFoldIf(t, "exit", reExitedWith); m != nil {
		s.exitCode(l, atoiDef(m[1], 0), -1, 0)
		return
	}
	if m := findIf(t, "returned non-zero exit status ", reNonZero); m != nil {
		s.exitCode(l, atoiDef(m[1], 0), -1, 0)
		return
	}
	if m := findFoldIf(t, "exit", reExitCode); m != nil && !strings.Contains(t, "exit code is") {
		s.exitCode(l, atoiDef(m[1], 0), -1, 0)
		return
	}
	if sig := extractGoSignal(t); sig != "" {
		s.deathSignal(l, sig, 0, false, "", "")
		return
	}

	if strings.Contains(t, "OOMKilled") {
		return // container.go
	}
	d, ok := extractShellDeath(unemphasize(strings.TrimSpace(t)))
	if !ok {
		d, ok = extractLocalShellDeath(t) // killlocale.go
	}
	if ok {
		if !d.whole {
			return
		}
		s.deathSignal(l, d.sig, 0, false, "", "")
		s.deathNamed(l, d.sig, d.pid)
		return
	}
	if strings.Contains(t, "Segmentation fault (core dumped)") {
		s.deathSignal(l, "SIGSEGV", 0, false, "", "")
	}
}

// extractHydraExit reads the MPI launcher's exit status of a dead rank as an
// exit code: "EXIT CODE: 139" as printed, "… EXIT STRING: Killed (signal
// 9)" as -9 (the signal). Hydra prints a signalled rank's raw wait status
// (the signal, +128 with a core dump), so a bare "EXIT CODE: 9" is SIGKILL
// — no core is ever dumped for it (je-santos/MPLBM-UT#92, cBio/cbio-cluster#256,
// openai/jukebox#155 with its EXIT STRING).
func extractHydraExit(t string) (int, bool) {
	m := findIf(t, "EXIT ", reHydraExit)
	if m == nil {
		return 0, false
	}
	if m[1] != "" {
		if c := atoiDef(m[1], 0); c != 9 {
			return c, true
		}
		return -9, true
	}
	return -atoiDef(m[2], 0), true
}

// spawnDeath is torch.multiprocessing.spawn's report of a child killed by a
// signal: "torch.multiprocessing.spawn.ProcessExitedException: process 0
// terminated with signal SIGKILL" (older torch: "Exception: process 0 …").
type spawnDeath struct {
	index int
	sig   string
}

func extractSpawnDeath(t string) (spawnDeath, bool) {
	m := findIf(t, " terminated with signal ", reSpawnDeath)
	if m == nil {
		return spawnDeath{}, false
	}
	return spawnDeath{index: atoiDef(m[1], -1), sig: m[2]}, true
}

// slurmTask is srun's "srun: error: <host>: task(s) <list>: <death>": the
// signal the death wording names, or the exit code and its signal.
type slurmTask struct {
	host, tasks, sig string
	code             int // the exit status; 128+signal for a signal wording
	hasCode          bool
	oom              bool // "Out Of Memory": the step cgroup's OOM kill
}

func extractSlurmTask(t string) (slurmTask, bool) {
	m := findIf(t, "srun: error: ", reSlurm)
	if m == nil {
		return slurmTask{}, false
	}
	x := slurmTask{host: m[1], tasks: m[2], sig: deathSignal[m[3]], oom: m[3] == "Out Of Memory"}
	if m[4] != "" {
		x.code, x.hasCode = atoiDef(m[4], 0), true
		x.sig = exitSignal(x.code)
	} else if c, ok := signalCode[x.sig]; ok {
		x.code = 128 + c
	}
	return x, true
}

// singleTask is the task id of a one-task list ("3"), -1 for "0-7" or "1,4".
func singleTask(tasks string) int {
	for _, c := range tasks {
		if c < '0' || c > '9' {
			return -1
		}
	}
	return atoiDef(tasks, -1)
}

// slurmOOM is slurmstepd's report that the step's memory cgroup recorded
// OOM kills: "Detected N oom-kill event(s) in step J.S cgroup" (before
// Slurm 21.08), "… in StepId=J.S cgroup", "Detected N oom_kill event(s) in
// StepId=J.S. Some of the step tasks have been OOM Killed." (23.x).
type slurmOOM struct {
	events int
	step   string
}

func extractSlurmOOM(t string) (slurmOOM, bool) {
	if !containsAny(t, "oom-kill", "oom_kill") {
		return slurmOOM{}, false
	}
	m := reSlurmOOM.FindStringSubmatch(t)
	if m == nil {
		return slurmOOM{}, false
	}
	return slurmOOM{events: atoiDef(m[1], 0), step: m[2]}, true
}

// shellDeath is a shell's report of a child killed by a signal: "Killed",
// "bash: line 1:   800 Killed   cmd", "Aborted (core dumped)". whole is
// false when the death word only starts a longer sentence (not a report).
type shellDeath struct {
	pid   int
	sig   string
	whole bool
}

// extractShellDeath reads a trimmed line.
func extractShellDeath(tt string) (shellDeath, bool) {
	if !containsAny(tt, "Killed", "Aborted", "Segmentation fault", "Bus error", "Illegal instruction", "Floating point exception") {
		return shellDeath{}, false
	}
	m := reShellDeath.FindStringSubmatch(tt)
	if m == nil {
		return shellDeath{}, false
	}
	// bash pads the signal name to a column before "(core dumped)"
	whole := m[1] != "" || len(tt) <= len(m[0])+1 || strings.Contains(m[0], "(core dumped)") || strings.Contains(tt, ": line ")
	return shellDeath{pid: atoiDef(m[1], 0), sig: deathSignal[m[2]], whole: whole}, true
}

// extractWindowsException reads a Windows process crash as the signal a
// POSIX host would report: the NTSTATUS in a crash handler's "Exception
// Code: 0xC0000005", Event Viewer's "Exception code: 0xc0000005", Windows
// Error Reporting's "Exception Code:   c0000005" or an IDE's "Process
// finished with exit code -1073741819 (0xC0000005)". Access violation and
// stack overflow are SIGSEGV, illegal instruction SIGILL, a fail-fast
// (stack buffer overrun, abort()) SIGABRT.
func extractWindowsException(t string) string {
	if !containsFoldASCII(t, "c0000") {
		return ""
	}
	m := reWinExc.FindStringSubmatch(t)
	if m == nil {
		return ""
	}
	switch strings.ToLower(m[1]) {
	case "c0000005", "c00000fd":
		return "SIGSEGV"
	case "c000001d":
		return "SIGILL"
	}
	return "SIGABRT"
}

// extractGoSignal reads Go's os/exec "signal: aborted" as a signal name.
func extractGoSignal(t string) string {
	if m := findIf(t, "signal: ", reGoSignal); m != nil {
		return deathSignal[m[1]]
	}
	return ""
}

// reLauncherReturn: DeepSpeed's launcher reporting its child's return code
// from its signal handler ("[launch.py:434:sigkill_handler] ['/usr/bin/python3',
// '-u', 'main.py', …] exits with return code = -9"): a negative code is the
// signal that killed the child, as Python's subprocess reports it (a
// reporter's edit may drop the "]").
var reLauncherReturn = lazyre.New(`sigkill_handler\]?.* exits with return code = (-?\d+)`)

// extractLauncherReturn returns the child's return code of a launcher's
// "exits with return code = N" line.
func extractLauncherReturn(t string) (int, bool) {
	m := findIf(t, "exits with return code = ", reLauncherReturn)
	if m == nil {
		return 0, false
	}
	return atoiDef(m[1], 0), true
}

// calledProcessDeath: a Python launcher's CalledProcessError for a child
// a signal killed — torch.distributed.launch / DeepSpeed's / accelerate's
// "subprocess.CalledProcessError: Command '[…, '--local_rank=3', …]' died
// with <Signals.SIGKILL: 9>." (code -signal; rank the child's
// --local_rank, -1 without one).
type calledProcessDeath struct {
	code, rank int
}

var (
	reDiedWithSignal = lazyre.New(`died with <Signals\.SIG[A-Z]+: (\d+)>`)
	reLocalRankArg   = lazyre.New(`--local[_-]rank[= ]'?(\d+)`)
)

func extractCalledProcessDeath(t string) (calledProcessDeath, bool) {
	m := findIf(t, "died with <Signals.", reDiedWithSignal)
	if m == nil {
		return calledProcessDeath{}, false
	}
	d := calledProcessDeath{code: -atoiDef(m[1], 0), rank: -1}
	if r := submatchIf(t, "local", reLocalRankArg); r != "" {
		d.rank = atoiDef(r, -1)
	}
	// the launcher's child is a Python worker; a compiler or build tool
	// that died under subprocess (triton-adapter-opt, cargo) is not the job
	if d.rank < 0 && !pythonCommand(t) {
		return calledProcessDeath{}, false
	}
	return d, d.code < 0
}

// pythonCommand: the command's first word is a Python interpreter
// ("Command '['/usr/bin/python3', …" / "Command 'python train.py'").
func pythonCommand(t string) bool {
	i := strings.Index(t, "Command '")
	if i < 0 {
		return false
	}
	r := strings.TrimPrefix(t[i+len("Command '"):], "['")
	if j := strings.IndexAny(r, "' "); j >= 0 {
		r = r[:j]
	}
	if j := strings.LastIndexByte(r, '/'); j >= 0 {
		r = r[j+1:]
	}
	return strings.HasPrefix(r, "python")
}

// childExit: a supervisor's report of one dead child with its pid.
type childExit struct {
	code, pid int
}

// extractChildExit reads the supervisor wordings of reChildExit. SGLang
// before 0.4.6 printed the raw wait status ("with an exit code 256"): a
// multiple of 256 is the exit status shifted by 8 (256 = exit 1).
func extractChildExit(t string) (childExit, bool) {
	// both wordings hold "exit code": without it the lazy .*? backtracked
	// over every "process" line (an OOM-killer dmesg: 55% of the time)
	if !containsFoldASCII(t, "exit") {
		return childExit{}, false
	}
	m := reChildExit.FindStringSubmatch(t)
	if m == nil {
		return childExit{}, false
	}
	c := childExit{code: atoiDef(m[1], 0), pid: atoiDef(m[2], 0)}
	if m[1] == "" {
		c = childExit{code: atoiDef(m[4], 0), pid: atoiDef(m[3], 0)}
	} else if strings.Contains(strings.ToLower(t), "an exit code") && c.code >= 256 && c.code%256 == 0 {
		c.code >>= 8
	}
	return c, true
}

// deathNamed: the line that reports the death names the dead process (a
// shell's job line "line 28:  8156 Killed", zsh's "[1] 83815 segmentation
// fault", "DataLoader worker (pid 25902) is killed by signal: …"): that pid
// is the finding's process and, named alone, its culprit (culprit.go).
func (s *Session) deathNamed(l *line, sig string, pid int) {
	if pid <= 0 {
		return
	}
	switch sig {
	case "SIGSEGV":
		if a := s.b.get(ClassHostSegfault); a != nil {
			a.setPID(pid)
			a.deathNamed(pid, l.ev(s))
		}
	case "SIGBUS":
		// shared memory that ran out (sigbus.go): the dead worker is named
		if a := s.b.get(ClassHostOOMKill); a != nil {
			a.setPID(pid)
			a.deathNamed(pid, l.ev(s))
		}
	case "SIGABRT", "SIGILL", "SIGFPE", "SIGTRAP":
		// the shell's job notice ("line 14: 52104 Aborted (core dumped)")
		// names the process the abort ended: the root cause's (finalize.go)
		if f := &s.b.facts; len(f.aborts) > 0 && f.aborts[len(f.aborts)-1].pid == 0 {
			f.aborts[len(f.aborts)-1].pid = pid
		}
	case "SIGKILL":
		// like the OOM killer's victim line, the one process the evidence names
		if a := s.b.get(ClassHostOOMKill); a != nil {
			if a.f.PID == nil {
				a.setPID(pid)
				a.kernelNamed(pid, l.ev(s))
				a.detail("killed_pid", itoa(pid))
			}
			a.deathNamed(pid, l.ev(s))
		}
	}
}

// deathSignal records a process death by signal without (or with a shell) exit code.
func (s *Session) deathSignal(l *line, sig string, code int, hasCode bool, host, what string) {
	f := &s.b.facts
	switch sig {
	case "SIGKILL":
		if schedulerKill(f, s.b.get(ClassHostOOMKill)) && !strings.Contains(l.text, "Out Of Memory") { // slurm.go
			f.notes = appendCap(f.notes, "the SIGKILL (line "+itoa(l.no)+") follows Slurm's cancellation (line "+itoa(f.schedCancel.Line)+"): the scheduler ended the job, not the OOM killer", 8)
			return
		}
		if mpiTeardown(f, s.b.get(ClassHostOOMKill), sig) && !strings.Contains(l.text, "Out Of Memory") { // mpiabort.go
			f.notes = appendCap(f.notes, "the SIGKILL (line "+itoa(l.no)+") follows MPI_Abort (line "+itoa(f.mpiAbort.Line)+"): mpirun's teardown, not the OOM killer", 8)
			return
		}
		if cf := f.childFailure; cf != nil && !hasCode && what == "" {
			// defeater: a bare "Killed" after a child failed (childFailureWords)
			f.notes = appendCap(f.notes, "the trailing \"Killed\" (line "+itoa(l.no)+") follows \""+clip(cf.Text, 80)+"\" (line "+itoa(cf.Line)+"): the launcher killed its own process tree after a child failed, not the OOM killer", 8)
			return
		}
		a := s.b.add(s, ClassHostOOMKill, l, 0.55)
		a.setStr(&a.f.Signal, sig)
		if hasCode {
			a.setExit(code)
		}
		a.setStr(&a.f.Host, host)
		if what != "" {
			a.detail("task", what)
		}
	case "SIGBUS":
		s.applySIGBUS(l, code, hasCode, host, what, sharedMemoryWords(l.text)) // sigbus.go
	case "SIGSEGV":
		a := s.b.add(s, ClassHostSegfault, l, 0.75)
		a.setStr(&a.f.Signal, sig)
		if hasCode {
			a.setExit(code)
		}
		a.setStr(&a.f.Host, host)
		if what != "" {
			a.detail("task", what)
		}
	default:
		ef := exitFact{code: code, hasCode: hasCode, signal: sig, rank: l.rank, host: host, ev: l.ev(s)}
		ef.task = what
		f.aborts = append(f.aborts, ef)
		if len(f.aborts) > 16 {
			f.aborts = f.aborts[1:]
		}
	}
}

// exitKeywords are the exit parser's one keyword table: they feed the line
// prefilter (prefilter.go) and gate exitParser.line, so a line reaches the
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var exitKeywords = append([]string{" CANCELLED AT ", "MPI_ABORT was invoked", "called MPI_Abort(", ") was sent ", "EXIT CODE: ", "EXIT STRING: ", "RUNNING AT ", "oom-kill", "oom_kill", "xit", "Killed", "sigquit", "child failed", "died", "closing signal", "Child process", "Aborted", "fault", "Bus error", "Illegal instruction", "Floating point", "signal:", "srun:", "OOMKilled", "exitcode", " terminated with signal ", "xception ", "XCEPTION ", "zsh:", "segmentation violation", "bus error", "killed ", "abort ", "illegal hardware", "floating point", "ANOM_ABEND", " received by PID ", " received at time="}, localDeathKeywords...)
