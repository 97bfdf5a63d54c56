package main

// The seventh sweep (issue 24): input kinds no earlier cases*.go wrote.

var gen8Prefixes = []string{"s7-"}

func gen8(add adder, scale int) error {
	return nil
}
