/* proofglass.com: the console front of proofglass.exe, which is a GUI-subsystem program (a double click opens no
 * console window). cmd and PowerShell resolve "proofglass" to the .com before the .exe (PATHEXT), start it in their
 * console and wait for it, so a subcommand's output ends before the prompt comes back, its exit status is the
 * command's, and pipes and redirections reach proofglass.exe unchanged. Opening the window is not waited for. Built by scripts/package-windows.sh with
 * MinGW-w64; it imports system DLLs only. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

static void say(const wchar_t *msg, const wchar_t *arg, DWORD code) {
	wchar_t buf[2048];
	int n = wsprintfW(buf, L"proofglass.com: %ls %ls (Windows error %lu)\r\n", msg, arg, code);
	DWORD w;
	HANDLE h = GetStdHandle(STD_ERROR_HANDLE);
	if (!WriteConsoleW(h, buf, (DWORD)n, &w, NULL)) {
		char a[4096];
		int m = WideCharToMultiByte(CP_UTF8, 0, buf, n, a, sizeof a, NULL, NULL);
		WriteFile(h, a, (DWORD)m, &w, NULL);
	}
}

/* The child handles Ctrl+C itself (it attaches to this console); this process only waits for it to end. */
static BOOL WINAPI waitForChild(DWORD ev) {
	(void)ev;
	return TRUE;
}

static void inherit(DWORD which) {
	HANDLE h = GetStdHandle(which);
	if (h != NULL && h != INVALID_HANDLE_VALUE) SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
}

int main(void) {
	static wchar_t exe[32768];
	DWORD n = GetModuleFileNameW(NULL, exe, 32768);
	if (n == 0 || n >= 32768 - 4) {
		say(L"cannot find its own path", L"", GetLastError());
		return 1;
	}
	wchar_t *dot = exe + n;
	while (dot > exe && *dot != L'.' && *dot != L'\\') dot--;
	if (*dot != L'.') dot = exe + n;
	lstrcpyW(dot, L".exe"); /* proofglass.com → proofglass.exe, in the same folder */

	/* The arguments exactly as typed: the command line after the program's own name. */
	const wchar_t *args = GetCommandLineW();
	if (*args == L'"') {
		args++;
		while (*args && *args != L'"') args++;
		if (*args) args++;
	} else {
		while (*args && *args != L' ' && *args != L'\t') args++;
	}
	static wchar_t line[32768 + 8];
	if (lstrlenW(exe) + lstrlenW(args) + 3 >= (int)(sizeof line / sizeof line[0])) {
		say(L"command line too long for", exe, ERROR_FILENAME_EXCED_RANGE);
		return 1;
	}
	line[0] = L'"';
	lstrcpyW(line + 1, exe);
	lstrcatW(line, L"\"");
	lstrcatW(line, args);

	inherit(STD_INPUT_HANDLE);
	inherit(STD_OUTPUT_HANDLE);
	inherit(STD_ERROR_HANDLE);
	STARTUPINFOW si;
	ZeroMemory(&si, sizeof si);
	si.cb = sizeof si;
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	/* proofglass.exe sets this event when it opens the window instead of running a command: then there is nothing to
	 * wait for, and the console is free again at once. */
	SECURITY_ATTRIBUTES sa;
	ZeroMemory(&sa, sizeof sa);
	sa.nLength = sizeof sa;
	sa.bInheritHandle = TRUE;
	HANDLE window = CreateEventW(&sa, TRUE, FALSE, NULL);
	if (window != NULL) {
		wchar_t num[32];
		/* Handles fit in 32 bits on 64-bit Windows, so that other programs can share them. */
		wsprintfW(num, L"%lu", (unsigned long)(ULONG_PTR)window);
		SetEnvironmentVariableW(L"PROOFGLASS_FRONT_EVENT", num);
	}
	PROCESS_INFORMATION pi;
	SetConsoleCtrlHandler(waitForChild, TRUE);
	if (!CreateProcessW(exe, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		say(L"cannot start", exe, GetLastError());
		return 1;
	}
	CloseHandle(pi.hThread);
	HANDLE waits[2] = {pi.hProcess, window};
	DWORD which = WaitForMultipleObjects(window != NULL ? 2 : 1, waits, FALSE, INFINITE);
	if (which == WAIT_OBJECT_0 + 1) {
		CloseHandle(pi.hProcess);
		return 0; /* the window runs on its own */
	}
	DWORD code = 1;
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hProcess);
	return (int)code;
}
