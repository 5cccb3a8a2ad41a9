//go:build !linux

package ocr

func lowerPriority(int) {}
