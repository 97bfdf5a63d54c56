package crash

import "testing"

// A death by SIGBUS in a training job is shared memory that ran out
// (host_oom_kill, sub_kind shm), never a segfault; the dead worker's pid is
// named when the line gives it.
func TestSIGBUSIsSharedMemory(t *testing.T) {
	for _, c := range []struct {
		src, text string
		pid       int
	}{
		{"https://github.com/hkchengrex/STCN/issues/132", "RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.", 46794},
		{"https://github.com/PaddlePaddle/Paddle/issues/24708", "RuntimeError: DataLoader worker (pid 3002) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.", 3002},
		{"https://github.com/msr-fiddle/pipedream/issues/28", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", 0},
		{"https://github.com/DengpanFu/LUPerson/issues/20 (title)", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", 0},
		{"https://github.com/nianticlabs/simplerecon/issues/3 (title)", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", 0},
		{"https://github.com/hezhangsprinter/DCPDN/issues/58 (title, cut)", "ERROR: Unexpected bus error encountered in worker.", 0},
		{"https://github.com/OreoChocolate/MUREN/issues/15 (title)", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 (pid: 3311)", 0},
	} {
		d := diagnoseWhole("bus.log", []byte(c.text+"\n"))
		f := hasClass(d, ClassHostOOMKill)
		if f == nil || f.SubKind != "shm" || f.Signal != "SIGBUS" {
			t.Errorf("%s: want host_oom_kill (shm, SIGBUS), got %v %+v", c.src, classesOf(d), f)
			continue
		}
		if hasClass(d, ClassHostSegfault) != nil {
			t.Errorf("%s: a SIGBUS is no segfault: %v", c.src, classesOf(d))
		}
		if c.pid > 0 && (f.PID == nil || *f.PID != c.pid) {
			t.Errorf("%s: pid %v, want %d", c.src, f.PID, c.pid)
		}
		if !containsAny(joinSteps(f), "/dev/shm", "--shm-size") {
			t.Errorf("%s: next steps lack the shared-memory checks: %q", c.src, f.NextSteps)
		}
	}
	// a SIGSEGV stays a segfault
	d := diagnoseWhole("segv.log", []byte("RuntimeError: DataLoader worker (pid 3216) is killed by signal: Segmentation fault.\n"))
	if hasClass(d, ClassHostSegfault) == nil || hasClass(d, ClassHostOOMKill) != nil {
		t.Errorf("SIGSEGV: %v", classesOf(d))
	}
}

func joinSteps(f *Finding) string {
	s := ""
	for _, x := range f.NextSteps {
		s += x + "\n"
	}
	return s
}
