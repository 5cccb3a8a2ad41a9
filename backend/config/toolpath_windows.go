package config

import (
	"os"
	"path/filepath"
	"strings"
)

// Windows installers of tesseract and ffmpeg often leave PATH alone. Every exec.LookPath in Proofglass (OCR, media,
// doctor) finds them anyway: the usual install folders that exist are appended to this process's PATH (after the
// user's own entries, which still win) when the package loads.
func init() {
	path := os.Getenv("PATH")
	var add []string
	for _, d := range usualToolDirs(os.Getenv) {
		if st, err := os.Stat(d); err == nil && st.IsDir() && !pathHas(path, d) {
			add = append(add, d)
		}
	}
	if len(add) > 0 {
		_ = os.Setenv("PATH", strings.Join(append([]string{path}, add...), string(os.PathListSeparator)))
	}
}

// usualToolDirs lists where the usual Windows installs put tesseract.exe and ffmpeg.exe/ffprobe.exe: UB Mannheim's
// Tesseract (all users or per user), winget's links folder (Gyan.FFmpeg and others), and the by-hand C:\ffmpeg\bin.
func usualToolDirs(getenv func(string) string) []string {
	var out []string
	for _, root := range []string{getenv("ProgramFiles"), getenv("ProgramFiles(x86)"),
		filepath.Join(getenv("LOCALAPPDATA"), "Programs")} {
		if root == "" || root == "Programs" {
			continue
		}
		out = append(out, filepath.Join(root, "Tesseract-OCR"), filepath.Join(root, "ffmpeg", "bin"))
	}
	if la := getenv("LOCALAPPDATA"); la != "" {
		out = append(out, filepath.Join(la, "Microsoft", "WinGet", "Links"))
	}
	if sd := getenv("SystemDrive"); sd != "" {
		out = append(out, sd+`\ffmpeg\bin`)
	}
	return out
}

// pathHas reports whether the PATH list holds dir (Windows paths compare without case).
func pathHas(path, dir string) bool {
	for _, p := range filepath.SplitList(path) {
		if strings.EqualFold(filepath.Clean(p), filepath.Clean(dir)) {
			return true
		}
	}
	return false
}
