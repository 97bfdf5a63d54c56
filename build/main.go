// Command build builds gputriage.wasm (GOOS=wasip1 reactor) and the CLI that
// embeds it. With -site it also bundles the page (see site.go).
//
//	go run ./build            # bin/gputriage + dist/gputriage.wasm
//	go run ./build -site      # + dist/ and dist-inline/
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	site := flag.Bool("site", false, "also bundle the page into dist/ and dist-inline/")
	wasmOnly := flag.Bool("wasm", false, "only build the module")
	serveAddr := flag.String("serve", "", "serve dist/ on this address (e.g. 127.0.0.1:8080) instead of building")
	flag.Parse()
	if *serveAddr != "" {
		if err := serve(*serveAddr); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*site, *wasmOnly); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

const (
	wasmOut   = "dist/gputriage.wasm"
	embedCopy = "cmd/gputriage/module/gputriage.wasm"
)

func run(site, wasmOnly bool) error {
	t0 := time.Now()
	if err := os.MkdirAll("dist", 0o755); err != nil {
		return err
	}
	// One reactor module for every host: the page's worker, node, wazero.
	if err := goBuild([]string{"GOOS=wasip1", "GOARCH=wasm"}, "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", wasmOut, "./wasm"); err != nil {
		return err
	}
	wasm, err := os.ReadFile(wasmOut)
	if err != nil {
		return err
	}
	if err := os.WriteFile(embedCopy, wasm, 0o644); err != nil {
		return err
	}
	fmt.Printf("build: %s %.2f MB\n", wasmOut, float64(len(wasm))/1e6)
	if wasmOnly {
		return nil
	}
	args := []string{"-trimpath", "-o", filepath.Join("bin", "gputriage")}
	if rev, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		// version prints it (the toolchain's vcs stamp may be off: -buildvcs=false)
		args = append(args, "-ldflags", "-X main.commit="+strings.TrimSpace(string(rev)))
	}
	if err := goBuild(nil, append(args, "./cmd/gputriage")...); err != nil {
		return err
	}
	fmt.Println("build: bin/gputriage")
	if site {
		if err := buildSite(wasm); err != nil {
			return err
		}
	}
	fmt.Printf("build: done in %.1fs\n", time.Since(t0).Seconds())
	return nil
}

func goBuild(env []string, args ...string) error {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %v: %w", args, err)
	}
	return nil
}
