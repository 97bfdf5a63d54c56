//go:build wasm

package trace

// The module parses with the loop versions (readstr.go).
func readString(b []byte, i int) ([]byte, int, bool) { return readStringLoop(b, i) }

func readToken(b []byte, i int) ([]byte, int, bool) { return readTokenLoop(b, i) }

func skipValue(b []byte, i int) (int, bool) { return skipValueLoop(b, i) }
