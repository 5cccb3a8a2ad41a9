//go:build !windows

package ocr

const installHint = "Debian: apt-get install tesseract-ocr"
