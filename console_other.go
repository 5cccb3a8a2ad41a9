//go:build !windows

package main

// attachConsole is needed only on Windows, where the desktop executable is a GUI-subsystem program.
func attachConsole() {}

// releaseConsoleFront is needed only on Windows, where proofglass.com waits for the executable it starts.
func releaseConsoleFront() {}
