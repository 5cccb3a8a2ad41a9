// Windows only (the _windows.c suffix keeps it out of every other build). go-fitz v1.28.2's windows_amd64 MuPDF
// libraries were built with a newer MinGW-w64 than Debian 12's (10.0): they call __intrinsic_setjmpex, which newer
// MinGW headers emit for setjmp and Debian's libmingwex lacks. It is the CRT's _setjmpex under another name, so the
// name is a tail jump to it: the caller's frame and return address stay exactly as setjmp needs them. They were also
// built with _FORTIFY_SOURCE, whose checked copies (__memcpy_chk and kin) Debian's MinGW keeps in libssp; linking
// libssp depends on the order cgo hands libraries to the linker, so the few they call are defined here, with the same
// check: a write past the destination aborts.
#include <stdlib.h>
#include <string.h>
__asm__(
	".text\n"
	".globl __intrinsic_setjmpex\n"
	"__intrinsic_setjmpex:\n"
	"\tjmp _setjmpex\n");

void __chk_fail(void) { abort(); }

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen) {
	if (n > dstlen) __chk_fail();
	return memcpy(dst, src, n);
}

void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen) {
	if (n > dstlen) __chk_fail();
	return memmove(dst, src, n);
}

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen) {
	if (n > dstlen) __chk_fail();
	return memset(dst, c, n);
}

char *__strcat_chk(char *dst, const char *src, size_t dstlen) {
	size_t a = strlen(dst), b = strlen(src);
	if (a + b + 1 > dstlen) __chk_fail();
	memcpy(dst + a, src, b + 1);
	return dst;
}
