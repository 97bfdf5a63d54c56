package crash

import "testing"

// RDMA completions that exhausted the transport retries, in the words of
// libraries other than NCCL, are the fabric failing under the collective;
// NCCL's retry setting is no failure.
func TestRDMARetryExceeded(t *testing.T) {
	cases := []struct {
		src, text string
		fail      bool
		dev       string
	}{
		{"https://github.com/uccl-project/uccl/issues/617", "CQE ERROR wr_id=12887842422 status=12(transport retry counter exceeded) opcode=4 byte_len=0 vendor_err=0xa qp_num=0x2e24", true, ""},
		{"https://github.com/uccl-project/uccl/issues/799", "CQE ERROR wr_id=3 status=12(transport retry counter exceeded) opcode=1 byte_len=0 vendor_err=0xa qp_num=0x2c10", true, ""},
		{"https://github.com/openucx/ucx/issues/7416", "[jwb0296:32182:0:32182] ib_mlx5_log.c:145  Transport retry count exceeded on mlx5_2:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)", true, "mlx5_2:1/IB"},
		{"https://github.com/openucx/ucx/issues/6000", "[compute001:31180:0:31180] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)", true, "mlx5_0:1/RoCE"},
		{"https://github.com/uccl-project/uccl/issues/293", "It was observed that `IBV_WC_RETRY_EXC_ERR` occurs after running `benchmark_uccl_read/write.py` for a certain number of iterations (always the same iteration):", true, ""},
		// the retry count as a setting
		{"https://github.com/NVIDIA/nccl/issues/1814", "hostname-test:986:1338 [6] NCCL INFO NCCL_IB_RETRY_CNT set by environment to 15.", false, ""},
	}
	for _, c := range cases {
		x, ok := extractRDMARetry(c.text)
		if ok != c.fail || ok && x.device != c.dev {
			t.Errorf("%s: %+v %v", c.src, x, ok)
		}
	}
	d := diagnoseWhole("x.log", []byte(cases[2].text+"\n"))
	f := hasClass(d, ClassRCCLTransport)
	if f == nil || f.Details["transport"] != "net_ib" || f.Details["rdma_device"] != "mlx5_2:1/IB" {
		t.Fatalf("UCX retry exceeded: %v", classesOf(d))
	}
	if d := diagnoseWhole("x.log", []byte(cases[5].text+"\n")); hasClass(d, ClassRCCLTransport) != nil {
		t.Errorf("a retry setting read as a failure: %v", classesOf(d))
	}
}
