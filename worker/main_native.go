//go:build !js

// Outside GOOS=js, syumai/workers' Serve is a plain net/http server (PORT,
// default 9900): `go run ./worker` serves dist/ and /analyze for a quick look
// without workerd. The Worker itself is main.go.
package main

import (
	"bytes"
	"io"
	"net/http"
	"os"

	"github.com/syumai/workers"

	"github.com/gputriage/gputriage/internal/sqlrows"
	"github.com/gputriage/gputriage/worker/server"
)

func main() {
	dir := "dist"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	workers.Serve(&server.Server{
		Static: http.FileServer(http.Dir(dir)),
		SQL:    func(db []byte) (io.ReadCloser, error) { return sqlrows.Stream(bytes.NewReader(db)) },
	})
}
