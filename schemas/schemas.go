// Package schemas holds the JSON Schema (2020-12) of every JSON artifact
// gputriage writes, schemas/<artifact>.schema.json, and Validate, which
// checks an artifact with santhosh-tekuri/jsonschema (the whole of 2020-12,
// not a subset: a hand-written one let null-only types pass unnoticed).
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// For returns the schema of an artifact ("kernel_table.json" →
// kernel_table.schema.json; a rank's ranks/3/kernel_table.json has the
// same schema).
func For(artifact string) ([]byte, error) {
	name := strings.TrimSuffix(path.Base(artifact), ".json") + ".schema.json"
	return files.ReadFile(name)
}

// Names lists the artifacts that have a schema.
func Names() []string {
	ents, _ := files.ReadDir(".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".schema.json")+".json")
	}
	return out
}

// Validate checks an artifact against its schema with a full JSON Schema
// 2020-12 validator; an artifact without a schema is an error. Only tests
// call it: no binary (CLI, wasm module, Worker) links the validator.
func Validate(artifact string, doc []byte) error {
	sch, err := compiled(path.Base(artifact))
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %v", artifact, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s: %v", artifact, err)
	}
	return nil
}

var (
	mu    sync.Mutex
	cache = map[string]*jsonschema.Schema{}
)

func compiled(artifact string) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := cache[artifact]; ok {
		return s, nil
	}
	sb, err := For(artifact)
	if err != nil {
		return nil, fmt.Errorf("%s: no schema (add schemas/%s.schema.json)", artifact, strings.TrimSuffix(artifact, ".json"))
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sb))
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %v", artifact, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "https://gputriage.local/schemas/" + strings.TrimSuffix(artifact, ".json") + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: schema: %v", artifact, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %v", artifact, err)
	}
	cache[artifact] = s
	return s, nil
}
