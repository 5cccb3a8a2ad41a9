//go:build !windows

package main

// attachConsole is needed only on Windows, where the desktop executable is a GUI-subsystem program.
func attachConsole() {}
