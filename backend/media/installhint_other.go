//go:build !windows

package media

const installHint = "Debian: apt-get install ffmpeg"
