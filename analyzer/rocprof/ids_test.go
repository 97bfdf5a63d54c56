package rocprof

import (
	"fmt"
	"testing"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Queue and agent ids are kept at 64 bits (queue 2^40+7 is not queue 7);
// a queue id beyond int64 makes the row unreadable, never queue 0.
func TestCSVIDs64(t *testing.T) {
	st := trace.NewStore()
	run := NewCSVRun(st, "kernel_trace.csv")
	c := run.File(1 << 16)
	c.Write([]byte(`"Kind","Agent_Id","Queue_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"
"KERNEL_DISPATCH",1099511627779,7,"k1",1,100,200
"KERNEL_DISPATCH",1099511627779,1099511627783,"k2",2,150,250
"KERNEL_DISPATCH",1099511627779,18446744073709551623,"k3",3,300,400
`))
	_, problem := c.Close()
	run.Flush()
	var got []string
	for _, o := range st.GPU {
		got = append(got, fmt.Sprintf("%d/%d", o.Device, o.Stream))
	}
	if fmt.Sprint(got) != "[1099511627779/7 1099511627779/1099511627783]" || problem == "" {
		t.Errorf("ops %v, problem %q", got, problem)
	}
}

// Imported times follow the Kineto reader's range: a start beyond MaxTS or
// an end minus start beyond MaxDur is skipped and counted, the file partial.
func TestCSVTimeRange(t *testing.T) {
	st := trace.NewStore()
	run := NewCSVRun(st, "kernel_trace.csv")
	c := run.File(1 << 16)
	c.Write([]byte(`"Kind","Agent_Id","Queue_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"
"KERNEL_DISPATCH",4,7,"k1",1,100,200
"KERNEL_DISPATCH",4,7,"k2",2,-9000000000000000000,9000000000000000000
"KERNEL_DISPATCH",4,7,"k3",3,100,9000000000000000000
`))
	c.Close()
	run.Flush()
	f := st.Files[0]
	if len(st.GPU) != 1 || f.Numbers.TSRange != 1 || f.Numbers.DurRange != 1 || !f.Partial() {
		t.Errorf("%d ops, numbers %+v", len(st.GPU), f.Numbers)
	}
}

// A rocprofv3 JSON document is decoded whole: one time that is not an
// integer within int64 (1e400, 1.5, 2^64) refused the whole document (exit
// 2); now its record is skipped and counted like any out-of-range time.
func TestJSONTimeNotAnInteger(t *testing.T) {
	st := trace.NewStore()
	rec := func(start, end string) string {
		return `{"correlation_id":{"internal":1},"start_timestamp":` + start + `,"end_timestamp":` + end +
			`,"dispatch_info":{"agent_id":{"handle":2},"queue_id":{"handle":1},"kernel_id":8}}`
	}
	doc := `{"rocprofiler-sdk-tool":[{"metadata":{"pid":908,"init_time":1e400,"fini_time":2},"kernel_symbols":[{"kernel_id":8,"formatted_kernel_name":"k"}],` +
		`"buffer_records":{"kernel_dispatch":[` + rec("100", "200") + `,` + rec("1e400", "1e400") + `,` + rec("1.5", "300") + `,` +
		rec("300", "18446744073709551616") + `,` + rec("-0", "5") + `]}}]}`
	if err := ReadJSON(st, "908_results.json", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	f := st.Files[0]
	if len(st.GPU) != 2 || f.Numbers.TSRange != 2 || f.Numbers.DurRange != 1 || !f.Partial() {
		t.Errorf("%d ops, numbers %+v", len(st.GPU), f.Numbers)
	}
}
