//go:build !wasm

package trace

import "github.com/gputriage/gputriage/analyzer/internal/jsontext"

// Native builds keep jsontext's vectorised versions (readstr.go).
func readString(b []byte, i int) ([]byte, int, bool) { return jsontext.ReadString(b, i) }

func readToken(b []byte, i int) ([]byte, int, bool) { return jsontext.ReadToken(b, i) }

func skipValue(b []byte, i int) (int, bool) { return jsontext.SkipValue(b, i) }
