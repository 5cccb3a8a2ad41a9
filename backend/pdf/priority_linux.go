package pdf

import "syscall"

// workerNice is the niceness of MuPDF workers: background, but not starved.
const workerNice = 5

func lowerPriority(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, workerNice) }
