//go:build !linux

package main

import "github.com/tetratelabs/wazero/experimental"

func memoryAllocator() experimental.MemoryAllocator { return nil }
