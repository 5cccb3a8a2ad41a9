// Test-only stand-in for Windows' bcryptprimitives.dll, which Debian 12's Wine 8.0 lacks and the Go 1.21+ runtime
// loads at start for ProcessPrng. Copied beside proofglass.exe inside the Wine prefix by scripts/windows-test.sh; never
// shipped (every supported Windows has the real one).
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len); // RtlGenRandom, advapi32

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
