package crash

import "testing"

// Horovod's NCCL context reports the NCCL call that failed with NCCL's own
// result text, once per wrapping layer: the communicator failed
// (rccl_transport), whatever framework exception carries it.
func TestHorovodNCCLCallFailed(t *testing.T) {
	for _, c := range []struct{ src, text string }{
		{"https://github.com/horovod/horovod/issues/1195", "UnknownError (see above for traceback): ncclCommInitRank failed: ncclCommInitRank failed: unhandled system error"},
		{"https://github.com/horovod/horovod/issues/3343 (title)", "[Error] horovod.common.exceptions.HorovodInternalError: ncclCommInitRank failed: unhandled system error"},
		{"https://github.com/horovod/horovod/issues/3625 (title)", "ncclCommInitRank failed: unhandled cuda error"},
	} {
		x, ok := extractNCCLResult(c.text)
		if !ok || x.res == nil || x.where != "ncclCommInitRank" {
			t.Errorf("%s: extractNCCLResult = %+v, %v", c.src, x, ok)
		}
		d := diagnoseWhole("hvd.log", []byte(c.text+"\n"))
		if hasClass(d, ClassRCCLTransport) == nil {
			t.Errorf("%s: no rccl_transport: %v", c.src, classesOf(d))
		}
	}
	// a call that failed with no NCCL result text is no NCCL failure
	if _, ok := extractNCCLResult("ncclCommInitRank failed: see the log above"); ok {
		t.Error("a failure without NCCL's result text was read as one")
	}
}
