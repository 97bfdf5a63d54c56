package rocprof

import (
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Bad input gives a problem or a partial file, never a panic.

func FuzzRows(f *testing.F) {
	f.Add([]byte(RowsMagic + "@ rpd.api_ops\n[1,2]\n@ rpd.ops\n[1,5,9,2,0,\"k\",\"Task\"]\n[1,\"x\"]\n"))
	f.Add([]byte(RowsMagic + "@ rocpd.kernels\n[1,2,3,\"a\\u0041\",0,16]\n[\n@ nope\n"))
	f.Add([]byte(RowsMagic + "@ rocpd.agents\n[2,2,0,\"gfx950\",\"MI\",256,64]\n@ compute.dispatches\n[0,1,2,0,\"k\",1]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := trace.NewStore()
		r := NewRows(st, "f", 1<<16)
		r.Write(b)
		r.Close()
	})
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n\"K\",\"Agent 2\",\"a, b\",1,2\n"))
	f.Add([]byte("\"Agent_Id\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n1,2,3\n1,2,3,4,5\n"))
	f.Add([]byte("\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\"\n2,2,\"GPU\"\n\"x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := trace.NewStore()
		run := NewCSVRun(st, "f")
		c := run.File(1 << 16)
		c.Write(b)
		c.Close()
		run.Flush()
	})
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"rocprofiler-sdk-tool":[{"agents":[{"type":2,"node_id":2,"id":{"handle":7}}],"kernel_symbols":[{"kernel_id":1,"formatted_kernel_name":"k"}],"buffer_records":{"kernel_dispatch":[{"start_timestamp":5,"end_timestamp":3,"dispatch_info":{"agent_id":{"handle":7},"kernel_id":1}}],"memory_copy":[{"kind":99,"operation":-1}]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadJSON(trace.NewStore(), "f", b)
	})
}
