package ocr

import "syscall"

// tesseractNice is the niceness of tesseract runs, as for the MuPDF workers: ingest is background work and must
// not make the window or a search stutter.
const tesseractNice = 5

func lowerPriority(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, tesseractNice) }
