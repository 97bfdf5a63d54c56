package crash

import "testing"

// fr_trace's mismatch report, as printed in pytorch/pytorch#140969's test
// plan ("Not all ranks joining collective: sequence number: 31117 …
// missing ranks: {3, 4, 5, 6, 7} … world size: 8 … collective state:
// scheduled"): the missing ranks are the culprit of a collective hang.
func TestExtractFRTraceLine(t *testing.T) {
	for _, c := range []struct {
		in    string
		field string
		n     int
		ranks []int
	}{
		{"Not all ranks joining collective: sequence number: 31117", "start", 31117, nil},
		{"missing ranks: {3, 4, 5, 6, 7}", "missing", 0, []int{3, 4, 5, 6, 7}},
		{"missing ranks: {5}", "missing", 0, []int{5}},
		{"world size: 8", "world", 8, nil},
		{"collective: nccl:all_reduce", "collective", 0, nil},
		{"collective state: scheduled", "state", 0, nil},
		{"group info: 0:default_pg", "group", 0, nil},
		{"missing ranks: {}", "", 0, nil},
		{"expected ranks: {0, 1, 2, 3, 4, 5, 6, 7}", "", 0, nil},
	} {
		f, ok := extractFRTraceLine(c.in)
		if (c.field != "") != ok || f.field != c.field || (c.n != 0 && f.n != c.n) || len(f.ranks) != len(c.ranks) {
			t.Errorf("%q: got %+v %v", c.in, f, ok)
			continue
		}
		for i := range c.ranks {
			if f.ranks[i] != c.ranks[i] {
				t.Errorf("%q: ranks %v", c.in, f.ranks)
			}
		}
	}
}

func TestFRTraceReportNamesMissingRanks(t *testing.T) {
	report := "Not all ranks joining collective: sequence number: 31117\ninternal record id: 31116\ngroup info: 0:default_pg\ncollective: nccl:all_reduce\nmissing ranks: {3}\ninput sizes: [[1571911]]\noutput sizes: [[1571911]]\nworld size: 8\nexpected ranks: {0, 1, 2, 3, 4, 5, 6, 7}\ncollective state: scheduled\ncollective stack trace:\n all_reduce at /packages/torch/distributed/distributed_c10d.py:2707\n"
	d := diagnoseWhole("fr_report.txt", []byte(report))
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 3 {
		t.Fatalf("want collective_timeout with culprit rank 3: %s", d.JSON())
	}
	// the lines alone, without the report's header, are no evidence
	d = diagnoseWhole("notes.txt", []byte("missing ranks: {3}\nworld size: 8\n"))
	if hasClass(d, ClassCollectiveTimeout) != nil {
		t.Fatalf("fields without the header read as a report: %s", d.JSON())
	}
}

// The analyzer's other header wordings, and a mismatch it pins on one rank:
// "Culprit rank N; Error type: X, …" (torch/distributed/flight_recorder
// components/builder.py f"Culprit rank {error[0]}; {str(error[1])}" and
// MatchInfo's "Error type: {state.name}, {culprit}").
func TestFRTraceHeadersAndMismatchCulprit(t *testing.T) {
	for _, c := range []struct {
		in string
		n  int
	}{
		{"Not all ranks joining collective, sequence number: 4", 4},         // builder.py's logger_msg (a public fr demo prints it)
		{"  Not all ranks joining collective 5 at entry 4", 5},              // pytorch/tutorials flight_recorder_tutorial (torchfrtrace)
		{"Not all ranks joining collective: sequence number: 31117", 31117}, // pytorch/pytorch#140969
	} {
		if f, ok := extractFRTraceLine(c.in); !ok || f.field != "start" || f.n != c.n {
			t.Errorf("%q: %+v %v", c.in, f, ok)
		}
	}
	if f, ok := extractFRTraceLine("error msg: Culprit rank 6; Error type: COLLECTIVE_SIZE_MISMATCH, Expected input sizes: '[[4096, 8192]]' does not match found input sizes: '[[2048, 8192]]'"); !ok || f.field != "culprit" || f.ranks[0] != 6 || f.text != "COLLECTIVE_SIZE_MISMATCH" {
		t.Errorf("culprit line: %+v %v", f, ok)
	}
	report := "Not all ranks joining collective, sequence number: 1204\ngroup info: 0:default_pg\ncollective: nccl:all_gather_into_tensor_coalesced\nmissing ranks: set()\ncollective state: scheduled\nerror msg: Culprit rank 6; Error type: COLLECTIVE_SIZE_MISMATCH, Expected input sizes: '[[4096, 8192]]' does not match found input sizes: '[[2048, 8192]]'\n"
	d := diagnoseWhole("fr_report.txt", []byte(report))
	f := hasClass(d, ClassCollectiveTimeout)
	if f == nil || f.Culprit == nil || f.Culprit.Rank == nil || *f.Culprit.Rank != 6 {
		t.Fatalf("want collective_timeout with culprit rank 6: %s", d.JSON())
	}
}
