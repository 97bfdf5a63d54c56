package crash

import "testing"

// torchelastic's and TorchX's local-rank prefixes (real wordings: two
// training logs with "[default0]:[rank0]: Traceback …" and a NeMo run's
// "nemo.collections.llm.api.pretrain/0 [default0]:[rank0]:" in the code
// corpus; pytorch/pytorch#137523's "trainer/0 [0]:" test plan).
func TestLaunchPrefixes(t *testing.T) {
	for _, c := range []struct {
		src, raw string
		n, rank  int
		torchx   bool
	}{
		{"code corpus: training log", "[default0]:[rank0]: RuntimeError: mat2 must be a matrix", len("[default0]:"), 0, false},
		{"code corpus: NeMo pretrain", `nemo.collections.llm.api.pretrain/0 [default0]:[rank0]:   File "/opt/megatron-lm/megatron/core/parallel_state.py", line 532`, len("nemo.collections.llm.api.pretrain/0 [default0]:"), 0, true},
		{"https://github.com/pytorch/pytorch/pull/137523", "trainer/0 [0]:I0927 12:07:22.643805 1012209 plugin.cpp:559] Profiler start dump", len("trainer/0 [0]:"), 0, true},
		{"torchelastic tee, local rank 3", "[default3]:Memory access fault by GPU node-4", len("[default3]:"), 3, false},
		// not prefixes: c10's own tag, a stamp, prose
		{"c10 rank tag", "[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught", 0, -1, false},
		{"c10 stamp", "[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught", 0, -1, false},
		{"prose", "epoch 3/10 [loss]: 0.5", 0, -1, true},
	} {
		var n, r int
		if c.torchx {
			n, r = matchTorchXTag(c.raw)
		} else {
			n, r = matchElasticTag(c.raw)
		}
		if n != c.n || r != c.rank {
			t.Errorf("%s: %q matched %d bytes rank %d; want %d rank %d", c.src, c.raw, n, r, c.n, c.rank)
		}
	}
}

// The whole path: the local rank names the faulting worker; a global
// "[rankN]:" after it wins.
func TestLaunchPrefixRank(t *testing.T) {
	for _, c := range []struct {
		log  string
		rank int
	}{
		{"[default3]:Memory access fault by GPU node-4 (Agent handle: 0x55d5c0c4e2f0) on address 0x7f1c1a000000. Reason: Page not present or supervisor privilege.\n", 3},
		{"[default1]:[rank9]: Memory access fault by GPU node-4 (Agent handle: 0x55d5c0c4e2f0) on address 0x7f1c1a000000. Reason: Page not present or supervisor privilege.\n", 9},
	} {
		d := diagnoseWhole("rank.log", []byte(c.log))
		f := hasClass(d, ClassGPUMemoryFault)
		if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != c.rank {
			t.Errorf("%q: want culprit rank %d, got %+v", c.log, c.rank, f)
		}
	}
}
