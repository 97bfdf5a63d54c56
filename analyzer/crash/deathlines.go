package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Process deaths by signal in the wordings of shells, debuggers and runtimes
// other than bash's job line (exit.go extractShellDeath): each extractor
// reads one line into a signalDeath and decides no class; exitParser hands
// it to deathSignal (SIGSEGV/SIGBUS → host_segfault, SIGKILL → host OOM
// kill unless a child failure explains it).

// signalDeath: a process (pid 0 = not named) died of sig.
type signalDeath struct {
	pid int
	sig string
	src string // which tool printed it
}

var (
	// zsh's job notice "[1]    83815 segmentation fault  python train.py"
	// and, without job control, "zsh: segmentation fault  python app.py"
	reZshDeath = lazyre.New(`^(?:\[\d+\]\s+[+-]?\s*(\d+)|zsh:)\s+(segmentation fault|bus error|killed|abort|illegal hardware instruction|floating point exception)(?:\s+\(core dumped\))?\s`)
	// torch.utils.data: "DataLoader worker (pid 25902) is killed by signal: Segmentation fault"
	reLoaderDeath = lazyre.New(`DataLoader worker \(pid\(?s?\)? ?(\d+)\)? is killed by signal: (Segmentation fault|Bus error|Killed|Aborted)`)
	// gdb on a core file: "Program terminated with signal SIGSEGV, Segmentation
	// fault." (older gdb prints the number: "signal 11, Segmentation fault.")
	reCoreBanner = lazyre.New(`^Program terminated with signal (SIG[A-Z]+|\d+), `)
	// the Go runtime's fatal signal: "SIGSEGV: segmentation violation" (the
	// panic header) and "[signal SIGSEGV: segmentation violation code=…]"
	reGoRuntimeSig = lazyre.New(`(?:^|\[signal |stderr: )(SIGSEGV|SIGBUS): (?:segmentation violation|bus error)`)
	// the kernel's own report of a user process it signalled (dmesg, journal):
	// "python3[15122]: segfault at 20 ip 00007f44bdeb40a7 sp … error 4 in
	// libamdhip64.so[…]" and x86's "traps: python[3097] general protection
	// fault ip:7f00fdcb09df sp:… error:0 in libamdhip64.so.7.2.70201[…]"
	// (a GPF is delivered as SIGSEGV); the number in brackets is the task's pid
	reKernelSegv = lazyre.New(`([^\s\[\]]{1,16})\[(\d+)\]:? (?:segfault at [0-9a-fA-F]+ ip [0-9a-fA-F]+ sp [0-9a-fA-F]+ error|general protection fault ip:[0-9a-fA-F]+ sp:[0-9a-fA-F]+ error:)`)
	// auditd's abnormal-end record: "audit[40923]: ANOM_ABEND auid=1000 …
	// pid=40923 comm="python3" exe=… sig=11 res=1"
	reAnomAbend = lazyre.New(`ANOM_ABEND .*?\bpid=(\d+)\b.*?\bsig=(\d+)\b`)
	// Google's failure signal handlers, linked into TensorFlow, PaddlePaddle,
	// Ray and XLA: glog's "*** SIGSEGV (@0x8) received by PID 298 (TID 0x7f…)
	// from PID 8; stack trace: ***" (an internal build: "(@0x…), see … received
	// by PID N (TID N) on cpu 32; …"; Paddle's summary "[SignalInfo: *** SIGSEGV
	// (@0x0) received by PID 5695 (TID …) from PID 0 ***]") and absl's "***
	// SIGSEGV received at time=1721904360 on cpu 140 ***" (no pid: Ray's
	// "(RayWorkerWrapper pid=N)" relay prefix names the process, not the line)
	reFailureSignal = lazyre.New(`\*\*\* (SIGSEGV|SIGBUS) (?:\(@0x[0-9a-fA-F]+\)[^*]*? received by PID (\d+)|received at time=\d+)`)
	// UCX's error handler (libucs, loaded by Open MPI, NCCL's UCX plugin and
	// PyTorch wheels that bundle it): "[node024:53956:0:53956] Caught signal
	// 11 (Segmentation fault: address not mapped to object at address 0x18)",
	// the older "[hpc-test-node2:6294 :2] Caught signal 11 (…)"; the bracket
	// is host:pid:thread[:tid], and a paste may drop it
	// Open MPI's signal handler (opal's backtrace), one line per field
	// under "[host:pid] *** Process received signal ***":
	// "[nhri:08445] Signal: Segmentation fault (11)" (NVIDIA/nccl#20,
	// open-mpi/ompi#1999); the bracket is host:pid
	reOMPISignal = lazyre.New(`\[[^\s:\]]+:(\d+)\] Signal: (?:Segmentation fault \((11)\)|Bus error \((7)\))`)
	reUCXSignal  = lazyre.New(`(?:\[[^\s:\]]+:(\d+) ?:\d+(?::\d+)?\] )?Caught signal (11|7) \((?:Segmentation fault|Bus error)`)
)

var zshSignal = map[string]string{
	"segmentation fault": "SIGSEGV", "bus error": "SIGBUS", "killed": "SIGKILL", "abort": "SIGABRT",
	"illegal hardware instruction": "SIGILL", "floating point exception": "SIGFPE",
}

// extractSignalDeath reads one line as a death by signal: raw as read (the
// normaliser takes zsh's "[1]" for a rank prefix), t with prefixes stripped.
func extractSignalDeath(raw, t string) (signalDeath, bool) {
	tt := strings.TrimSpace(t)
	if r := strings.TrimSpace(raw); strings.HasPrefix(r, "[") || strings.HasPrefix(r, "zsh:") {
		if m := reZshDeath.FindStringSubmatch(r + " "); m != nil {
			return signalDeath{pid: atoiDef(m[1], 0), sig: zshSignal[m[2]], src: "zsh"}, true
		}
	}
	if strings.Contains(t, "DataLoader worker") {
		if m := reLoaderDeath.FindStringSubmatch(t); m != nil {
			return signalDeath{pid: atoiDef(m[1], 0), sig: deathSignal[m[2]], src: "DataLoader worker"}, true
		}
	}
	if strings.HasPrefix(tt, "Program terminated with signal ") {
		if m := reCoreBanner.FindStringSubmatch(tt); m != nil {
			sig := m[1]
			if n := atoiDef(sig, -1); n > 0 {
				sig = signalNames[n]
			}
			if sig != "" {
				return signalDeath{sig: sig, src: "gdb (core file)"}, true
			}
		}
	}
	if strings.Contains(t, "]: segfault at ") || strings.Contains(t, "] general protection fault ip:") {
		if m := reKernelSegv.FindStringSubmatch(t); m != nil {
			return signalDeath{pid: atoiDef(m[2], 0), sig: "SIGSEGV", src: "kernel (" + m[1] + ")"}, true
		}
	}
	if strings.Contains(t, "ANOM_ABEND") {
		if m := reAnomAbend.FindStringSubmatch(t); m != nil {
			if sig := signalNames[atoiDef(m[2], 0)]; sig != "" {
				return signalDeath{pid: atoiDef(m[1], 0), sig: sig, src: "audit"}, true
			}
		}
	}
	if strings.Contains(t, "*** SIG") && containsAny(t, " received by PID ", " received at time=") {
		// a crash signal only: a SIGABRT after a GPU error is its consequence,
		// SIGTERM the launcher's teardown
		if m := reFailureSignal.FindStringSubmatch(t); m != nil {
			return signalDeath{pid: atoiDef(m[2], 0), sig: m[1], src: "failure signal handler"}, true
		}
	}
	if strings.Contains(t, "] Signal: ") {
		if m := reOMPISignal.FindStringSubmatch(t); m != nil {
			return signalDeath{pid: atoiDef(m[1], 0), sig: signalNames[atoiDef(m[2]+m[3], 0)], src: "Open MPI"}, true
		}
	}
	if strings.Contains(t, "Caught signal ") {
		if m := reUCXSignal.FindStringSubmatch(t); m != nil {
			return signalDeath{pid: atoiDef(m[1], 0), sig: signalNames[atoiDef(m[2], 0)], src: "UCX"}, true
		}
	}
	if strings.Contains(t, ": segmentation violation") || strings.Contains(t, ": bus error") {
		if m := reGoRuntimeSig.FindStringSubmatch(tt); m != nil {
			return signalDeath{sig: m[1], src: "Go runtime"}, true
		}
	}
	return signalDeath{}, false
}
