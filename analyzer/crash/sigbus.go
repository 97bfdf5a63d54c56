package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// A process killed by SIGBUS touched a mapped page nothing could back. In a
// training or serving job that is almost always shared memory: PyTorch's
// DataLoader and multiprocessing pass tensors through /dev/shm (a tmpfs,
// 64 MiB in a default docker container), and a worker that writes past
// what the tmpfs can hold dies of SIGBUS, not SIGSEGV. It is the class
// table's "host RAM or shm too small" (host_oom_kill, sub_kind shm), not a
// segfault of bad code. The wordings:
//
//	RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. …
//	ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
//	ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 (pid: 3311) …
//
// A file truncated under its mapping gives the same signal; the reason says so.

// reWorkerBusError: the signal handler of torch.utils.data's worker loop
// (torch/csrc/DataLoader.cpp), printed by the worker itself before it dies.
var reWorkerBusError = lazyre.New(`Unexpected bus error encountered in worker\b`)

// extractWorkerBusError reports the worker's own SIGBUS line; shm is true when
// the line names shared memory.
func extractWorkerBusError(t string) (shm bool, ok bool) {
	if !strings.Contains(t, "bus error encountered") || !reWorkerBusError.MatchString(t) {
		return false, false
	}
	return sharedMemoryWords(t), true
}

// sharedMemoryWords: the line itself blames shared memory.
func sharedMemoryWords(t string) bool {
	return containsAny(t, "shared memory", "(shm)", "/dev/shm", "shm-size")
}

// applySIGBUS records a death by SIGBUS as host memory (shared memory) that
// ran out; shm: the line says so.
func (s *Session) applySIGBUS(l *line, code int, hasCode bool, host, what string, shm bool) *agg {
	conf := 0.55
	if shm {
		conf = 0.8
	}
	a := s.b.add(s, ClassHostOOMKill, l, conf)
	a.setStr(&a.f.Signal, "SIGBUS")
	if a.f.SubKind == "" {
		a.f.SubKind = "shm"
	}
	if hasCode {
		a.setExit(code)
	}
	a.setStr(&a.f.Host, host)
	if what != "" {
		a.detail("task", what)
	}
	if shm {
		a.addReason("a worker died of SIGBUS writing shared memory: /dev/shm (tmpfs) is too small for what the DataLoader / multiprocessing workers pass through it")
	} else {
		a.addReason("the process died of SIGBUS: a mapped page nothing could back — most often /dev/shm (tmpfs) full, else a file truncated under its mapping")
	}
	return a
}
