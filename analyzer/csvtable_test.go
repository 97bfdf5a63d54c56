package analyzer

import (
	"strings"
	"testing"
)

func TestTableCSV(t *testing.T) {
	doc := `{"tool":"gputriage","rows":[
  {"kernel":"=HYPERLINK(\"x\")","delta_us":-12.5,"cpu_op":null,"tags":["a","b"],"note":"a, \"quoted\"\nline"},
  {"kernel":"@sum","delta_us":3,"cpu_op":"-cmd","tags":[],"note":"\tx"}]}`
	got, ok := tableCSV(doc, "rows")
	if !ok {
		t.Fatal("no csv")
	}
	want := "kernel,delta_us,cpu_op,tags,note\n" +
		`"'=HYPERLINK(""x"")",-12.5,,"[""a"",""b""]","a, ""quoted""` + "\nline\"\n" +
		"'@sum,3,'-cmd,[],'\tx\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if _, ok := tableCSV(`{"rows":[]}`, "rows"); ok {
		t.Error("empty table gave a CSV")
	}
}

func TestStamp(t *testing.T) {
	in := "{\n  \"tool\": \"x\",\n  \"rows\": [\n    1\n  ],\n  \"partial\": true\n}\n"
	got := stamp(in, "run-1", false)
	want := "{\n  \"tool\": \"gputriage\",\n  \"schema_version\": \"0.2.0\",\n  \"run_id\": \"run-1\",\n  \"partial\": true,\n  \"rows\": [\n    1\n  ]\n}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(stamp("{}", "r", true), `"partial": true`) {
		t.Error("run partial not stamped")
	}
}

func TestDigest(t *testing.T) {
	data := []byte(strings.Repeat("abcdefghij", 30000))
	var one, chunks digest
	one.write(data)
	for i := 0; i < len(data); i += 777 {
		chunks.write(data[i:min(i+777, len(data))])
	}
	if one.sum() != chunks.sum() {
		t.Error("digest depends on chunking")
	}
	var other digest
	other.write(append(append([]byte{}, data[:len(data)-1]...), 'X'))
	var again digest
	again.write(data)
	if other.sum() == again.sum() {
		t.Error("a changed last byte left the digest unchanged")
	}
}
