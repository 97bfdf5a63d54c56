package main

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// reservedMemory backs the module's linear memory with one address-space
// reservation of its maximum size, so growing it never copies (wazero's
// default appends to a Go slice: each memory.grow copied the whole heap).
// Pages cost nothing until the module touches them.
type reservedMemory struct{ buf []byte }

func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *reservedMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}

// memoryAllocator returns nil (wazero's default) when the reservation fails.
func memoryAllocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return &growingMemory{}
		}
		return &reservedMemory{buf: buf}
	})
}

// growingMemory is the fallback: a slice that doubles, so that growth copies
// the heap O(log n) times rather than on every memory.grow.
type growingMemory struct{ buf []byte }

func (m *growingMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		nb := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
		copy(nb, m.buf)
		m.buf = nb
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *growingMemory) Free() { m.buf = nil }
