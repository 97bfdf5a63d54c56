package schemas

import (
	"strings"
	"testing"
)

func TestValidator(t *testing.T) {
	good := `{"tool":"gputriage","schema_version":"0.2.0","run_id":"run-1","partial":false,"rows":[]}`
	if err := Validate("kernel_table.json", []byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ doc, want string }{
		{`{"tool":"gputriage","schema_version":"0.2.0","partial":false,"rows":[]}`, `missing "run_id"`},
		{`{"tool":"other","schema_version":"0.2.0","run_id":"r","partial":false,"rows":[]}`, "want gputriage"},
		{`{"tool":"gputriage","schema_version":"0.2.0","run_id":"r","partial":"no","rows":[]}`, "partial: string, want boolean"},
		{`{"tool":"gputriage","schema_version":"0.2.0","run_id":"r","partial":false,"rows":[{"kernel":1}]}`, "rows[0].kernel"},
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

// Every schema uses only what the validator enforces.
func TestSchemasUseTheSubset(t *testing.T) {
	for _, n := range Names() {
		b, _ := For(n)
		if !strings.Contains(string(b), `"https://json-schema.org/draft/2020-12/schema"`) {
			t.Errorf("%s: not a 2020-12 schema", n)
		}
		// An empty document trips every required field but no keyword error.
		if err := Validate(n, []byte(`{}`)); err != nil && strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v", n, err)
		}
	}
}
