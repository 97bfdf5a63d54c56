package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// keepCompiled is how many compiled modules the wazero cache keeps. Each
// module build is a new cache entry of ~45 MB (machine code for 10 MB of
// wasm) that wazero never removes: the cache grew to gigabytes on a
// developer machine. Three cover the installed CLI and a checkout or two.
const keepCompiled = 3

// pruneCache removes all but the keep newest compiled modules under the
// cache directory dir (in wazero's per-version subdirectories "wazero-*").
// An entry in use by another process stays readable until it closes it; a
// binary whose entry was removed compiles its module again. Temporary files
// of a write in progress are left alone unless they are an hour old.
func pruneCache(dir string, keep int) {
	subs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	type entry struct {
		path string
		mod  time.Time
	}
	var entries []entry
	for _, sub := range subs {
		des, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, de := range des {
			info, err := de.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			p := filepath.Join(sub, de.Name())
			if strings.HasSuffix(de.Name(), ".tmp") {
				if time.Since(info.ModTime()) > time.Hour {
					os.Remove(p)
				}
				continue
			}
			entries = append(entries, entry{p, info.ModTime()})
		}
	}
	if len(entries) <= keep {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int { return b.mod.Compare(a.mod) })
	for _, e := range entries[keep:] {
		os.Remove(e.path)
	}
}
