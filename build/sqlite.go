package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/ncruces/go-sqlite3"

	"github.com/gputriage/gputriage/analyzer/rocprof"
)

// sqliteDir is SQLite's own wasm build, the npm package
// @sqlite.org/sqlite-wasm (pinned in package-lock.json; `npm ci`).
const sqliteDir = "node_modules/@sqlite.org/sqlite-wasm"

// sqliteParts are the page worker's SQLite: sqlite3.wasm gzipped and
// base64-encoded (jsbridge/sqlite-wasm.js) and the row-stream queries
// (analyzer/rocprof/queries.json), the CLI's own text.
type sqliteParts struct {
	wasmB64 string
	queries string
}

func sqliteVirtuals() (sqliteParts, error) {
	pj, err := os.ReadFile(filepath.Join(sqliteDir, "package.json"))
	if err != nil {
		return sqliteParts{}, fmt.Errorf("SQLite's wasm build is missing (run `npm ci`): %v", err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(pj, &pkg); err != nil {
		return sqliteParts{}, fmt.Errorf("%s/package.json: %v", sqliteDir, err)
	}
	// The same SQLite as the CLI's, or json_array() text (number
	// formatting) could differ between hosts.
	cli, err := cliSQLiteVersion()
	if err != nil {
		return sqliteParts{}, err
	}
	if v, _, _ := strings.Cut(pkg.Version, "-"); v != cli {
		return sqliteParts{}, fmt.Errorf("%s is SQLite %s but the CLI's (github.com/ncruces/go-sqlite3) is %s: pin the npm package to the CLI's SQLite so every host writes the same rows", sqliteDir, pkg.Version, cli)
	}
	wasm, err := os.ReadFile(filepath.Join(sqliteDir, "dist", "sqlite3.wasm"))
	if err != nil {
		return sqliteParts{}, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	if err := zw.Close(); err != nil {
		return sqliteParts{}, err
	}
	fmt.Printf("build: SQLite %s (%s): sqlite3.wasm %d B, gzip %d B, base64 %d B in worker.js\n",
		cli, pkg.Version, len(wasm), gz.Len(), base64.StdEncoding.EncodedLen(gz.Len()))
	return sqliteParts{base64.StdEncoding.EncodeToString(gz.Bytes()), string(rocprof.QueriesJSON())}, nil
}

// with adds the SQLite imports to a worker bundle's virtuals.
func (p sqliteParts) with(vs virtuals) virtuals {
	vs["gputriage-sqlite-wasm"] = virtual{contents: p.wasmB64, loader: api.LoaderText}
	vs["gputriage-queries"] = virtual{contents: p.queries, loader: api.LoaderJSON}
	return vs
}

func cliSQLiteVersion() (string, error) {
	db, err := sqlite3.Open(":memory:")
	if err != nil {
		return "", err
	}
	defer db.Close()
	s, _, err := db.Prepare("SELECT sqlite_version()")
	if err != nil {
		return "", err
	}
	defer s.Close()
	if !s.Step() {
		return "", fmt.Errorf("sqlite_version(): %v", s.Err())
	}
	return s.ColumnText(0), nil
}
