package pdf

import (
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// lowerPriority puts a worker in the below-normal priority class: background, but not starved (workerNice on Linux).
func lowerPriority(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_SET_INFORMATION, false, uint32(pid))
	if err != nil {
		return
	}
	_ = windows.SetPriorityClass(h, windows.BELOW_NORMAL_PRIORITY_CLASS)
	_ = windows.CloseHandle(h)
}

// workerJob is this process's job object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: its one handle is never closed, so
// Windows closes it when this process ends, however it ends, and then ends every worker in the job (what
// Pdeathsig-style parent tracking does on Linux). Zero when the job could not be made: workers then run unattached.
var workerJob = sync.OnceValue(func() windows.Handle {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0
	}
	return job
})

// startWorker starts cmd and puts it in workerJob, so it ends with this process. A worker makes no processes of its
// own, so nothing escapes in the moment between the start and the assignment.
func startWorker(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if job := workerJob(); job != 0 {
		if h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false,
			uint32(cmd.Process.Pid)); err == nil {
			_ = windows.AssignProcessToJobObject(job, h)
			_ = windows.CloseHandle(h)
		}
	}
	return nil
}
