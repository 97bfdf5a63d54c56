//go:build !linux

package main

func maxRSS(any) string { return "–" }
