package analyzer

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
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
	want := "{\n  \"tool\": \"gputriage\",\n  \"schema_version\": \"0.4.0\",\n  \"run_id\": \"run-1\",\n  \"partial\": true,\n  \"rows\": [\n    1\n  ]\n}\n"
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

// The walker writes what decoding writes, for any valid JSON (it is only
// ever given encoding/json's output, which is valid UTF-8 too).
func FuzzTableCSV(f *testing.F) {
	for _, s := range []string{
		`{"tool":"gputriage","rows":[{"kernel":"=HYPERLINK(\"x\")","delta_us":-12.5,"cpu_op":null,"tags":["a",{"b":"]}"}],"note":"a, \"quoted\"\nline"},{"kernel":"@sum","delta_us":3,"cpu_op":"-cmd","tags":[],"note":"\tx"}]}`,
		"{\n  \"rows\": [\n    {\n      \"a\": 1,\n      \"b\": \"x\\\\\"\n    },\n    {\n      \"b\": \"y\",\n      \"a\": 2,\n      \"a\": 3\n    }\n  ],\n  \"rows\": null\n}\n",
		`{"rows":[{}]}`, `{"rows":[{"a":1},{}]}`, `{"rows":{}}`, `{"r\u006fws":[{"k\"":"\u001b[2J"}]}`, `[1]`, `{"rows":[1]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) || !utf8.ValidString(doc) {
			return
		}
		got, ok := tableCSV(doc, "rows")
		want, wok := tableCSVDecoded(doc, "rows")
		if got != want || ok != wok {
			t.Errorf("%q: walker %v %q, decoder %v %q", doc, ok, got, wok, want)
		}
	})
}
