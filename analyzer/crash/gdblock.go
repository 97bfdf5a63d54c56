package crash

import "strconv"

// A host-side deadlock seen through rocgdb: the GPU has nothing in flight
// ("No dispatches are currently active.", every queue's Read equal to its
// Write: drainedIdle) while two or more host threads of "thread apply all bt"
// sit in a lock wait — gdb's top frames pthread_mutex_lock / __lll_lock_wait
// (glibc's futex wait under it). The process hangs on the CPU, not the GPU.

// lockFrame: a backtrace frame of a thread waiting to take a lock.
func lockFrame(frame string) bool {
	_, fn, _ := splitFrame(frame)
	return containsAny(fn, "pthread_mutex_lock", "__lll_lock_wait", "__pthread_mutex_lock", "std::mutex::lock", "pthread_rwlock_wrlock", "pthread_rwlock_rdlock")
}

// hostLockHang: a drained, idle dump with ≥ 2 host threads in a lock wait
// is a cpu_hang (unless a finding already explains the hang).
func (b *builder) hostLockHang(work map[string]*agg) {
	if work[ClassCPUHang] != nil || work[ClassGPUKernelHang] != nil {
		return
	}
	for _, d := range b.facts.inc.gdbDumps {
		if d.crash || d.lockWait < 2 || !drainedIdle(d) {
			continue
		}
		a := newAgg(ClassCPUHang, 0.7)
		a.strong = true
		a.evidence(d.ev)
		a.evidence(d.lockEv)
		a.addReason("rocgdb: no dispatch in flight and every queue drained while " + strconv.Itoa(d.lockWait) + " host threads wait on a lock: a host-side deadlock, the GPU is idle")
		if d.pid > 0 {
			a.setPID(d.pid)
			a.detail("attached_pid", strconv.Itoa(d.pid))
		}
		a.note("the threads' backtraces show which locks they hold and wait for: look for two threads taking the same pair of locks in opposite order")
		a.f.Count++
		work[ClassCPUHang] = a
		return
	}
}
