package media

// installHint names the usual Windows install (Proofglass also looks in winget's links folder when it is not on PATH).
const installHint = "Windows: winget install Gyan.FFmpeg"
