package collectives

import (
	"encoding/json"
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// A custom all-reduce writes no record_param_comms: its message is the
// tensor the launching op reduces, which a trace recorded with
// record_shapes holds in that op's Input Dims and Input type — PyTorch
// symmetric memory's symm_mem::multimem_all_reduce_(input, op, group)
// ([[2557440], [], []], ["c10::BFloat16", "", ""] in TraceLens's B200
// trace), vLLM's _C_custom_ar::all_reduce(fa, inp, out, …) (the handle
// first: its dims are []). The first input with dims and a known element
// type is the message.
type customMsg struct {
	bytes int64
	dtype string
}

// customMessages maps the External id of each all-reduce op of file that
// recorded its shapes to its message.
func customMessages(st *trace.Store, file uint16) map[int64]customMsg {
	out := map[int64]customMsg{}
	for i := range st.Shapes {
		sh := &st.Shapes[i]
		sp := &st.CPU[sh.CPU]
		if sp.File != file || sp.Ext == trace.None {
			continue
		}
		if n := strings.ToLower(st.Name(sp.Name)); !strings.Contains(n, "all_reduce") && !strings.Contains(n, "allreduce") {
			continue
		}
		if m, ok := firstTensor(st.Name(sh.Dims), st.Name(sh.Types)); ok {
			out[sp.Ext] = m
		}
	}
	return out
}

// firstTensor reads the first input with dims and a known element type.
func firstTensor(dims, types string) (customMsg, bool) {
	var d [][]int64
	var ty []string
	if json.Unmarshal([]byte(dims), &d) != nil || json.Unmarshal([]byte(types), &ty) != nil {
		return customMsg{}, false
	}
	for i := range min(len(d), len(ty)) {
		dt := scalarName(ty[i])
		sz := dtypeSize(dt)
		if len(d[i]) == 0 || sz == 0 {
			continue
		}
		n := int64(1)
		for _, x := range d[i] {
			if x < 0 || (x > 0 && n > (1<<62)/x) {
				return customMsg{}, false
			}
			n *= x
		}
		return customMsg{bytes: n * sz, dtype: dt}, true
	}
	return customMsg{}, false
}

// scalarName turns the profiler's Input type (c10 names, or C names for
// the built-in types) into the ScalarType name dtypeSize knows.
func scalarName(t string) string {
	if s, ok := strings.CutPrefix(t, "c10::"); ok {
		return s
	}
	switch t {
	case "float":
		return "Float"
	case "double":
		return "Double"
	case "int":
		return "Int"
	case "long int", "long":
		return "Long"
	case "short int", "short":
		return "Short"
	case "signed char":
		return "Char"
	case "unsigned char":
		return "Byte"
	case "bool":
		return "Bool"
	}
	return ""
}
