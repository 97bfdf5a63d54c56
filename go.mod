module github.com/gputriage/gputriage

go 1.26.8

require (
	github.com/evanw/esbuild v0.28.2 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	golang.org/x/sys v0.44.0 // indirect
)
