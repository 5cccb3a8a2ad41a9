//go:build !linux && !windows

package ocr

func lowerPriority(int) {}
