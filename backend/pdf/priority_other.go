//go:build !linux

package pdf

func lowerPriority(int) {}
