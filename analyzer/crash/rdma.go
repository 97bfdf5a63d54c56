package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// An RDMA work completion with status 12 (IBV_WC_RETRY_EXC_ERR, "transport
// retry counter exceeded") means the NIC sent and never got an
// acknowledgement from its peer: a link, a switch, RoCE routing / PFC or the
// peer's NIC — the fabric under the collective, not the GPU. Libraries other
// than NCCL print it in their own words:
//
//	CQE ERROR wr_id=3 status=12(transport retry counter exceeded) opcode=1 byte_len=0 vendor_err=0xa qp_num=0x2c10   (UCCL)
//	[jwb0296:32182:0:32182] ib_mlx5_log.c:145  Transport retry count exceeded on mlx5_2:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)   (UCX)
//
// NCCL's own "NET/IB : Got completion … status=12" is read by its WARN
// catalog (ncclcatalog.go).

var (
	reRDMARetryDev = lazyre.New(`exceeded on (\S+?/(?:IB|RoCE))`)
	reRDMAQP       = lazyre.New(`qp_num=(0x[0-9a-fA-F]+)`)
)

// rdmaRetry is one work completion that exhausted the transport retries.
type rdmaRetry struct {
	device string // "mlx5_2:1/IB" when the line names it
	qp     string // "0x2c10" when the line names it
}

func extractRDMARetry(t string) (rdmaRetry, bool) {
	lt := strings.ToLower(t)
	if !strings.Contains(lt, "transport retry count") && !strings.Contains(t, "IBV_WC_RETRY_EXC_ERR") {
		return rdmaRetry{}, false
	}
	// a failed completion, not a setting ("NCCL_IB_RETRY_CNT", "retry count 7")
	if !strings.Contains(lt, "exceeded") && !strings.Contains(t, "IBV_WC_RETRY_EXC_ERR") {
		return rdmaRetry{}, false
	}
	return rdmaRetry{device: submatch(reRDMARetryDev, t), qp: submatch(reRDMAQP, t)}, true
}

// applyRDMARetry: the network under the collective failed → rccl_transport
// with the net_ib advice (nextsteps.go), less sure than NCCL's own WARN (the
// library may retry the connection).
func (s *Session) applyRDMARetry(l *line, x rdmaRetry) {
	a := s.b.add(s, ClassRCCLTransport, l, 0.7)
	a.detail("transport", "net_ib")
	a.detail("ib_status", "12")
	if x.device != "" {
		a.detail("rdma_device", x.device)
	}
	if x.qp != "" {
		a.detail("qp", x.qp)
	}
	r := "RDMA work completion failed with status 12 (transport retry counter exceeded)"
	if x.device != "" {
		r += " on " + x.device
	}
	a.addReason(r + ": the NIC got no acknowledgement from its peer (link, switch, RoCE routing or the peer's NIC)")
}
