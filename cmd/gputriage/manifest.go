package main

// artifacts.json: the manifest of an -o folder. It lists every file the run
// wrote with its size and sha256, and the run_id; the files a previous run's
// manifest lists and this run did not write are removed, so a reused folder
// never mixes two runs. Files gputriage did not write are left alone.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/report"
)

const manifestName = "artifacts.json"

type manifestFile struct {
	Name   string `json:"name"` // relative to the folder, with /
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

type manifest struct {
	Tool          string         `json:"tool"`
	SchemaVersion string         `json:"schema_version"`
	RunID         string         `json:"run_id"`
	Files         []manifestFile `json:"files"`
}

// writeArtifacts writes res's artifacts into dir, then its manifest, which
// also lists extra (files the host already wrote there).
func writeArtifacts(dir string, res *analyzer.Result, extra ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var names []string
	for _, a := range res.Artifacts {
		p := filepath.Join(dir, filepath.FromSlash(a.Name))
		// a rank folder's ranks/<rank>/ artifacts
		if d := filepath.Dir(p); d != filepath.Clean(dir) {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := writeFile(p, res, a); err != nil {
			return err
		}
		names = append(names, a.Name)
	}
	return writeManifest(dir, runIDOf(res), append(names, extra...))
}

// writeFile writes one artifact to p (a streamed one straight from its
// source: the merged rank trace is never one string).
func writeFile(p string, res *analyzer.Result, a analyzer.Artifact) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = res.WriteArtifact(f, a)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeManifest removes what the previous manifest in dir listed and names
// does not, and writes the new manifest of names.
func writeManifest(dir, runID string, names []string) error {
	prev := readManifest(dir)
	for _, f := range prev.Files {
		if !slices.Contains(names, f.Name) && safeRel(f.Name) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f.Name))); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("%s: a file of the previous run could not be removed: %v", filepath.Join(dir, f.Name), unwrapPathErr(err))
			}
		}
	}
	m := manifest{Tool: report.Tool, SchemaVersion: report.Version, RunID: runID, Files: []manifestFile{}}
	for _, n := range names {
		sum, size, err := hashFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return err
		}
		m.Files = append(m.Files, manifestFile{Name: n, Bytes: size, SHA256: sum})
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return os.WriteFile(filepath.Join(dir, manifestName), append(b, '\n'), 0o644)
}

func readManifest(dir string) manifest {
	var m manifest
	if b, err := os.ReadFile(filepath.Join(dir, manifestName)); err == nil {
		json.Unmarshal(b, &m)
	}
	return m
}

// safeRel keeps a tampered manifest from removing files outside the folder.
func safeRel(name string) bool {
	c := filepath.Clean(filepath.FromSlash(name))
	return name != "" && name != manifestName && !filepath.IsAbs(c) && c != ".." && !strings.HasPrefix(c, ".."+string(filepath.Separator))
}

func hashFile(path string) (string, int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// runIDOf is the run_id the artifacts carry (they all carry the same one).
func runIDOf(res *analyzer.Result) string {
	for _, a := range res.Artifacts {
		if !strings.HasSuffix(a.Name, ".json") {
			continue
		}
		var x struct {
			RunID string `json:"run_id"`
		}
		if json.Unmarshal([]byte(a.Text), &x) == nil && x.RunID != "" {
			return x.RunID
		}
	}
	return ""
}
