//go:build !linux && !windows

package pdf

import "os/exec"

func lowerPriority(int) {}

func startWorker(cmd *exec.Cmd) error { return cmd.Start() }
