package crash

import "testing"

// The DataLoader's one-line death message (pytorch/pytorch#5040,
// hkchengrex/STCN#132, NVIDIA/Megatron-LM#878) wrapped after "by signal:"
// is read as the line it was.
func TestLoaderDeathWrapped(t *testing.T) {
	for _, c := range []struct {
		src, log string
		class    string
		pid      int
	}{
		{"kraken in eScriptorium (three lines, trailing spaces)",
			"DataLoader worker (pid 270071) is killed by signal: \nBus error. It is possible that dataloader's workers are out of shared memory. \nPlease try to raise your shared memory limit. \n",
			ClassHostOOMKill, 270071},
		{"PaddlePaddle/PaddleOCR#3624 (signal Killed), wrapped",
			"RuntimeError: DataLoader worker (pid 3063) is killed by signal:\nKilled.\n",
			ClassHostOOMKill, 3063},
		{"deathlines.go reLoaderDeath real wording (Segmentation fault), wrapped",
			"RuntimeError: DataLoader worker (pid 25902) is killed by signal:\nSegmentation fault.\n",
			ClassHostSegfault, 25902},
	} {
		d := diagnoseWhole("train.log", []byte(c.log))
		f := hasClass(d, c.class)
		if f == nil {
			t.Errorf("%s: classes %v, want %s", c.src, classesOf(d), c.class)
			continue
		}
		if f.Culprit == nil || f.Culprit.PID == nil || *f.Culprit.PID != c.pid {
			t.Errorf("%s: culprit %+v, want pid %d", c.src, f.Culprit, c.pid)
		}
	}
	// a line between the head and the signal: the head is no longer the message
	d := diagnoseWhole("train.log", []byte("DataLoader worker (pid 5) is killed by signal:\nepoch 3 done\nBus error in the sentence above\n"))
	if hasClass(d, ClassHostOOMKill) != nil {
		t.Errorf("a non-adjacent line joined: %v", classesOf(d))
	}
}
