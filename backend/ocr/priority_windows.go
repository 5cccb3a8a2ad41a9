package ocr

import "golang.org/x/sys/windows"

// lowerPriority puts tesseract in the below-normal priority class (tesseractNice on Linux).
func lowerPriority(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_SET_INFORMATION, false, uint32(pid))
	if err != nil {
		return
	}
	_ = windows.SetPriorityClass(h, windows.BELOW_NORMAL_PRIORITY_CLASS)
	_ = windows.CloseHandle(h)
}
