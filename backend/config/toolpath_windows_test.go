package config

import (
	"slices"
	"testing"
)

func TestUsualToolDirs(t *testing.T) {
	env := map[string]string{"ProgramFiles": `C:\Program Files`, "LOCALAPPDATA": `C:\Users\Jürgen\AppData\Local`,
		"SystemDrive": "C:"}
	got := usualToolDirs(func(k string) string { return env[k] })
	for _, want := range []string{`C:\Program Files\Tesseract-OCR`, `C:\Users\Jürgen\AppData\Local\Programs\Tesseract-OCR`,
		`C:\Users\Jürgen\AppData\Local\Microsoft\WinGet\Links`, `C:\ffmpeg\bin`} {
		if !slices.Contains(got, want) {
			t.Errorf("usualToolDirs lacks %s: %q", want, got)
		}
	}
	if !pathHas(`C:\Windows;c:\program files\tesseract-ocr\`, `C:\Program Files\Tesseract-OCR`) {
		t.Error("pathHas is case-sensitive or trips on a trailing separator")
	}
}
