package crash

import (
	"strings"
	"testing"
)

// Lock-wait frames in real "thread apply all bt" pastes:
// DamZiobro/gdb-automatic-deadlock-detector#1 ("#0 … in __lll_lock_wait ()
// from /lib64/libpthread.so.0", "#2 … in pthread_mutex_lock () from …"),
// rockchip-linux/gstreamer-rockchip#71 ("__lll_lock_wait (futex=0x55b8b326a0,
// private=0) at lowlevellock.c:43"), adaptivecomputing/torque#59.
func TestLockFrame(t *testing.T) {
	for _, c := range []struct {
		frame string
		want  bool
	}{
		{"0x00007fc51414254d in __lll_lock_wait () from /lib64/libpthread.so.0", true},
		{"0x00007fc51413dd68 in pthread_mutex_lock () from /lib64/libpthread.so.0", true},
		{"0x0000007fa17be5f0 in __lll_lock_wait (futex=0x55b8b326a0, private=0) at lowlevellock.c:43", true},
		{"0x00007f2b8e51ee2e in epoll_wait () from /lib/x86_64-linux-gnu/libc.so.6", false},
		{"0x00007f034f1b168c in pthread_cond_wait@@GLIBC_2.3.2 () from /lib64/libpthread.so.0", false},
	} {
		if got := lockFrame(c.frame); got != c.want {
			t.Errorf("lockFrame(%q) = %v", c.frame, got)
		}
	}
}

const lockDump = `Attaching to process 77310
No dispatches are currently active.
  Id   Target Id                   Type  Read  Write  Size     Address
* 1    AMDGPU Queue 1:1 (QID 0)    HSA   58811 58811  1048576  0x00007f2a10400000

Thread 3 (Thread 0x7fc513d65700 (LWP 32036)):
#0  0x00007fc51414254d in __lll_lock_wait () from /lib64/libpthread.so.0
#1  0x00007fc51413dd68 in pthread_mutex_lock () from /lib64/libpthread.so.0
#2  0x0000000000400927 in writeTest (temp=0x0) at deadlockExample.c:15

Thread 2 (Thread 0x7fc513564700 (LWP 32037)):
#0  0x00007fc51414254d in __lll_lock_wait () from /lib64/libpthread.so.0
#1  0x00007fc51413dd68 in pthread_mutex_lock () from /lib64/libpthread.so.0
#2  0x0000000000400967 in readTest (temp=0x0) at deadlockExample.c:25

Thread 1 (Thread 0x7fc514562740 (LWP 32035)):
#0  0x00007fc51413cf57 in pthread_join () from /lib64/libpthread.so.0
#1  0x00000000004009d6 in main () at deadlockExample.c:40
[Inferior 1 (process 77310) detached]
`

// A drained, idle GPU with two host threads in a lock wait is a host
// deadlock; the same dump with the threads in epoll is an idle worker.
func TestHostLockHang(t *testing.T) {
	d := diagnoseWhole("d.txt", []byte(lockDump))
	if f := hasClass(d, ClassCPUHang); f == nil || hasClass(d, ClassGPUKernelHang) != nil {
		t.Fatalf("%v\n%s", classesOf(d), d.JSON())
	}
	idle := strings.ReplaceAll(strings.ReplaceAll(lockDump, "__lll_lock_wait", "epoll_wait"), "pthread_mutex_lock", "poll")
	if d := diagnoseWhole("d.txt", []byte(idle)); hasClass(d, ClassCPUHang) != nil {
		t.Fatalf("an idle worker read as deadlocked: %v", classesOf(d))
	}
}
