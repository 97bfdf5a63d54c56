// Package lazyre holds regular expressions that are compiled on first use.
//
// The crash package has ~240 regexps and the kernel rules ~110: compiled at
// package init, they were a large part of gputriage.wasm's start-up (in the
// page and in `--engine wasm`) and 12 ms of every native start, though most
// commands use few of them. A Regexp answers as the regexp.Regexp of its
// source; a bad pattern panics at first use instead of at init, so each
// package's tests compile All of them.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns the regexp of src, compiled when it is first used.
func New(src string) *Regexp {
	r := &Regexp{src: src}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// All returns every Regexp made so far (for tests: compile them all).
func All() []*Regexp {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Regexp(nil), all...)
}

// Regexp returns the compiled regexp.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

// String returns the source text.
func (r *Regexp) String() string { return r.src }

func (r *Regexp) MatchString(s string) bool            { return r.Regexp().MatchString(s) }
func (r *Regexp) FindString(s string) string           { return r.Regexp().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int       { return r.Regexp().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}
func (r *Regexp) ExpandString(dst []byte, template, src string, match []int) []byte {
	return r.Regexp().ExpandString(dst, template, src, match)
}
