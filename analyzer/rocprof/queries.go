package rocprof

import (
	_ "embed"
	"encoding/json"
)

// A host reads a SQLite database (rocpd, RPD, rocprof-compute) by running
// these queries and writing their results as a row stream (rows.go); the
// module never parses SQLite itself. The queries live in queries.json so
// the CLI (Go) and the page and Worker (JavaScript) run the same text: each
// row is SQLite's own json_array(…) text, so every host feeds the module
// the same bytes.
//
//go:embed queries.json
var queriesJSON []byte

// Query is one query of the row stream.
type Query struct {
	// Name heads the query's section; the reader knows it by this name.
	Name string `json:"name"`
	// Requires are the tables or views the database must have for the
	// query to run (all of them); a query whose tables are missing is
	// left out of the stream.
	Requires []string `json:"requires"`
	// Columns name the values of each row's array, in order.
	Columns []string `json:"columns"`
	SQL     string   `json:"sql"`
}

// Queries returns the row-stream queries, in the order hosts run them.
func Queries() []Query {
	var qs []Query
	if err := json.Unmarshal(queriesJSON, &qs); err != nil {
		panic("rocprof: queries.json: " + err.Error()) // a build error, caught by the tests
	}
	return qs
}

// QueriesJSON is queries.json as embedded (the hosts' copy of the list).
func QueriesJSON() []byte { return queriesJSON }
