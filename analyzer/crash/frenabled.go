package crash

import "strings"

// extractFlightRecorderOn: the line shows PyTorch's NCCL flight recorder
// already on — its buffer variable set (TORCH_NCCL_TRACE_BUFFER_SIZE, the
// 2.11 spelling TORCH_FR_BUFFER_SIZE) to a size above 0, ProcessGroupNCCL's
// "Dumping flight recorder to …", or the analyser's own verdict ("Not all
// ranks joining collective …") — so a step must not ask to enable it.
func extractFlightRecorderOn(t string) bool {
	for _, v := range []string{"TORCH_NCCL_TRACE_BUFFER_SIZE=", "TORCH_FR_BUFFER_SIZE="} {
		if i := strings.Index(t, v); i >= 0 {
			n := t[i+len(v):]
			return n != "" && n[0] >= '1' && n[0] <= '9'
		}
	}
	return strings.Contains(t, "Dumping flight recorder to") || strings.Contains(t, "Not all ranks joining collective")
}
