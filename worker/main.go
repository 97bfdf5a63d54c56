//go:build js && wasm

// Command worker is gputriage as a Cloudflare Worker (github.com/syumai/workers,
// GOOS=js GOARCH=wasm only): POST /analyze runs the analyzer on the request
// body; the page (dist/) comes from the ASSETS binding — Cloudflare's static
// assets, or a workerd disk service locally. Build: go run ./worker/build.
package main

import (
	"io"
	"net/http"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/fetch"

	"github.com/gputriage/gputriage/worker/server"
)

func main() {
	workers.Serve(&server.Server{Static: assets{}, SQL: sqlRows})
}

// assets proxies GET/HEAD to the ASSETS binding. On Cloudflare the asset
// server answers matching paths before the Worker runs, so this only serves
// misses (404) there; under workerd it serves the whole page.
type assets struct{}

func (assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := cloudflare.GetBinding("ASSETS")
	if b.IsUndefined() || b.IsNull() {
		http.Error(w, "no ASSETS binding: the page is not deployed with this Worker", http.StatusNotFound)
		return
	}
	req, err := fetch.NewRequest(r.Context(), r.Method, "http://assets"+server.IndexPath(r.URL.Path), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res, err := fetch.NewClient(fetch.WithBinding(b)).Do(req, &fetch.RequestInit{Redirect: fetch.RedirectModeManual})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	// (Only single-valued headers: the JS bridge splits values on commas.)
	for _, k := range []string{"Content-Length", "Location"} {
		if v := res.Header.Get(k); v != "" {
			w.Header().Set(k, v)
		}
	}
	if res.StatusCode != http.StatusOK {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(res.StatusCode)
	io.Copy(w, res.Body) // hands the JS stream through without copying
}
