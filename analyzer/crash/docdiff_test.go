package crash

import "testing"

// A review thread's diff of a troubleshooting page quotes the errors it
// explains: no finding. A shell's xtrace and a log's own "+" lines stay
// evidence.
func TestDocumentDiffIsNoEvidence(t *testing.T) {
	for _, c := range []struct{ src, text string }{
		{"https://github.com/Project-MONAI/monai-physio/pull/126 (docs/troubleshooting.rst)", "+**Problem**: a run stops with a bare ``Killed`` and no traceback, typically just\n+after a line of ICON finetuning output:\n+\n+.. code-block:: text\n+\n+   ICONLoss(all_loss=tensor(1.0676, device='cuda:0', ...), ...)\n+   Killed\n+\n+**Cause**: the Linux OOM killer, not CUDA. A GPU shortage raises a catchable\n+``RuntimeError: CUDA out of memory`` with a Python traceback; ``Killed`` is the\n"},
		{"https://github.com/Lamatic/AgentKit/pull/311 (knowledge/infrastructure/docker/exit-code-137.md)", "+---\n+id: docker-exit-code-137\n+title: Docker Container Killed — Exit Code 137 (OOM)\n+domain: infrastructure\n+technology: docker\n+---\n+\n+## Problem Overview\n+Exit code 137 means the container process was killed by the OS kernel's Out-of-Memory (OOM) killer.\n"},
		{"https://github.com/Deci-AI/super-gradients/pull/699 (documentation/source/troubleshooting.md)", "+## CUDA error: device-side assert triggered\n+\n+You may encounter a generic CUDA error message that lacks information regarding the cause of the error:\n+\n+```\n+RuntimeError: CUDA error: device-side assert triggered\n"},
	} {
		d := diagnoseWhole("review.txt", []byte(c.text))
		if len(d.Findings) != 0 {
			t.Errorf("%s: findings %v from a document diff", c.src, classesOf(d))
		}
	}
	// bash -x traces a command with "+ "; the error after it is evidence
	d := diagnoseWhole("xtrace.log", []byte("+ python train.py --batch 64\nRuntimeError: CUDA error: device-side assert triggered\n"))
	if hasClass(d, ClassDeviceAssert) == nil {
		t.Errorf("xtrace: %v", classesOf(d))
	}
}
