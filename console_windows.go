package main

import (
	"log"
	"os"
	"strconv"

	"golang.org/x/sys/windows"
)

// AttachConsole is not in golang.org/x/sys/windows.
var attachConsoleProc = windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole")

const attachParentProcess = ^uintptr(0) // ATTACH_PARENT_PROCESS, (DWORD)-1

// attachConsole gives a CLI subcommand the console it was typed in. proofglass.exe is a GUI-subsystem program (a
// double click opens no console window), so Windows starts it without one: its output would be lost. Output already
// handed over (redirected to a file or pipe, or by proofglass.com, the console front cmd runs first) is kept; the
// console is still joined, so Ctrl+C in it reaches this process.
func attachConsole() {
	if h, err := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE); err == nil && h != 0 && h != windows.InvalidHandle {
		in, _ := windows.GetStdHandle(windows.STD_INPUT_HANDLE)
		errh, _ := windows.GetStdHandle(windows.STD_ERROR_HANDLE)
		if r, _, _ := attachConsoleProc.Call(attachParentProcess); r != 0 {
			// Joining a console can reset the standard handles to it; the ones handed over win.
			_ = windows.SetStdHandle(windows.STD_INPUT_HANDLE, in)
			_ = windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, h)
			_ = windows.SetStdHandle(windows.STD_ERROR_HANDLE, errh)
		}
		return
	}
	if r, _, _ := attachConsoleProc.Call(attachParentProcess); r == 0 {
		return // started from Explorer or a scheduler: there is no console to write to
	}
	if out, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0); err == nil {
		os.Stdout, os.Stderr = out, out
		_ = windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(out.Fd()))
		_ = windows.SetStdHandle(windows.STD_ERROR_HANDLE, windows.Handle(out.Fd()))
		log.SetOutput(out) // log (and slog's default) took os.Stderr before main ran
	}
	if in, err := os.OpenFile("CONIN$", os.O_RDONLY, 0); err == nil {
		os.Stdin = in
	}
}

// frontEventVar names the event proofglass.com (the console front) waits on besides this process: it hands over the
// handle's number. A window is not a command, so the front returns at once and the console is free again.
const frontEventVar = "PROOFGLASS_FRONT_EVENT"

// releaseConsoleFront tells proofglass.com that this process opens the window rather than running a command.
func releaseConsoleFront() {
	v := os.Getenv(frontEventVar)
	if v == "" {
		return
	}
	os.Unsetenv(frontEventVar) // not for the processes this one starts
	h, err := strconv.ParseUint(v, 10, 64)
	if err != nil || h == 0 {
		return
	}
	_ = windows.SetEvent(windows.Handle(h))
	_ = windows.CloseHandle(windows.Handle(h))
}
