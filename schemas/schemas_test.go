package schemas

import (
	"strings"
	"testing"
)

func TestValidator(t *testing.T) {
	good := `{"tool":"gputriage","schema_version":"0.4.0","run_id":"run-1","partial":false,"truncated":false,"merged_kernels":0,"rows":[]}`
	if err := Validate("kernel_table.json", []byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ doc, want string }{
		{`{"tool":"gputriage","schema_version":"0.4.0","partial":false,"truncated":false,"merged_kernels":0,"rows":[]}`, `missing property 'run_id'`},
		{`{"tool":"other","schema_version":"0.4.0","run_id":"r","partial":false,"truncated":false,"merged_kernels":0,"rows":[]}`, "value must be 'gputriage'"},
		{`{"tool":"gputriage","schema_version":"0.4.0","run_id":"r","partial":"no","truncated":false,"merged_kernels":0,"rows":[]}`, "at '/partial': got string, want boolean"},
		{`{"tool":"gputriage","schema_version":"0.4.0","run_id":"r","partial":false,"truncated":false,"merged_kernels":0,"rows":[{"kernel":1}]}`, "at '/rows/0/kernel'"},
	} {
		err := Validate("kernel_table.json", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	if err := Validate("no_such_artifact.json", []byte(good)); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Errorf("artifact without a schema: %v", err)
	}
}

// Every schema is a 2020-12 schema the validator compiles (which checks it
// against the meta-schema).
func TestSchemasCompile(t *testing.T) {
	for _, n := range Names() {
		b, _ := For(n)
		if !strings.Contains(string(b), `"https://json-schema.org/draft/2020-12/schema"`) {
			t.Errorf("%s: not a 2020-12 schema", n)
		}
		if _, err := compiled(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// The types issue 22 found wrong: a partial input's problem is a string,
// a correlated culprit's pid/gpu/rank/host are filled.
func TestSchemaTypesOfFilledFields(t *testing.T) {
	meta := `{"tool":"gputriage","schema_version":"0.4.0","run_id":"r","partial":true,"files":[{"name":"a.json","kind":"trace","bytes":10,"partial":true,"problem":"truncated"}]}`
	if err := Validate("profile_metadata.json", []byte(meta)); err != nil && strings.Contains(err.Error(), "/files/0/problem") {
		t.Errorf("files[].problem as a string: %v", err)
	}
	crash := `{"findings":[{"culprit":{"pid":4242,"gpu":"3","rank":1,"host":"node-7","ranks":[0,1],"pids":[4242]}}]}`
	if err := Validate("crash_diagnosis.json", []byte(crash)); err != nil && strings.Contains(err.Error(), "/culprit/") {
		t.Errorf("culprit pid/gpu/rank/host: %v", err)
	}
}
