package ocr

// installHint names the usual Windows install (Proofglass also looks in its folder when it is not on PATH).
const installHint = "Windows: winget install UB-Mannheim.TesseractOCR"
