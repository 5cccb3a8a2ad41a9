package doctor

// windowsInstall names the usual Windows installs of the tools Proofglass runs.
func windowsInstall(bin string) string {
	if bin == "tesseract" {
		return "install Tesseract (UB Mannheim build: winget install UB-Mannheim.TesseractOCR) and add " +
			`C:\Program Files\Tesseract-OCR to PATH`
	}
	return "install FFmpeg (winget install Gyan.FFmpeg, or a gyan.dev/BtbN build) and add its bin folder to PATH"
}

func installFix(bin string) string { return windowsInstall(bin) }

func reinstallFix(bin string) string { return "re" + windowsInstall(bin) }
