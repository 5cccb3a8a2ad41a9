package pdf

import (
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// workerNice is the niceness of MuPDF workers: background, but not starved.
const workerNice = 5

func lowerPriority(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, workerNice) }

// workerTimerSlackNS is the timer slack workers start with. A worker's goroutine spends most of its time in cgo
// calls, during which the Go runtime's monitor thread (sysmon) sleeps 20 µs at a time; on a virtual machine each of
// those wake-ups cost about 30 µs of CPU, 8–12 % of a worker's CPU on text pages. With 10 ms of slack the kernel
// lets those sleeps run long: R-refman p. 1–200, worker CPU 4.0–4.75 → 3.1–3.4 ms/page (sysmon 82–102 → 13–18 ms).
// Nothing in a worker waits on a timer (requests and answers are pipe reads), so nothing else gets slower.
const workerTimerSlackNS = 10_000_000

// startWorker starts cmd with workerTimerSlackNS of timer slack, which the child inherits from the thread that
// forks it (and keeps across exec) and passes on to every thread it makes.
func startWorker(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil || unix.Prctl(unix.PR_SET_TIMERSLACK, workerTimerSlackNS, 0, 0, 0) != nil {
		runtime.UnlockOSThread()
		return cmd.Start()
	}
	err = cmd.Start()
	if unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0) == nil {
		runtime.UnlockOSThread()
	} // else the thread ends with this goroutine rather than serve others with the worker's slack
	return err
}
