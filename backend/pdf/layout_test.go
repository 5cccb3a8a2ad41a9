//go:build cgo

package pdf

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// layoutProbe prints the offsets of the MuPDF structure members that mupdf.h declares by hand and mupdf.c reads or
// writes. It is compiled twice: against mupdf.h and against MuPDF's own headers (which go-fitz ships).
const layoutProbe = `#include <stdio.h>
#include <stddef.h>
#ifdef REAL
#include "mupdf/fitz.h"
#else
#include "mupdf.h"
#endif
#define P(T, m) printf("%s.%s %zu\n", #T, #m, offsetof(T, m))
int main(void) {
	printf("sizeof(fz_device) %zu\n", sizeof(fz_device));
	printf("sizeof(fz_color_params) %zu\n", sizeof(fz_color_params));
	printf("sizeof(fz_stext_options) %zu\n", sizeof(fz_stext_options));
	P(fz_device, refs); P(fz_device, hints); P(fz_device, flags); P(fz_device, close_device); P(fz_device, drop_device);
	P(fz_device, fill_path); P(fz_device, stroke_path); P(fz_device, clip_path); P(fz_device, clip_stroke_path);
	P(fz_device, fill_text); P(fz_device, stroke_text); P(fz_device, clip_text); P(fz_device, clip_stroke_text);
	P(fz_device, ignore_text); P(fz_device, fill_shade); P(fz_device, fill_image); P(fz_device, fill_image_mask);
	P(fz_device, clip_image_mask); P(fz_device, pop_clip); P(fz_device, begin_mask); P(fz_device, end_mask);
	P(fz_device, begin_group); P(fz_device, end_group); P(fz_device, begin_tile); P(fz_device, end_tile);
	P(fz_device, render_flags); P(fz_device, set_default_colorspaces); P(fz_device, begin_layer); P(fz_device, end_layer);
	P(fz_device, begin_structure); P(fz_device, end_structure); P(fz_device, begin_metatext); P(fz_device, end_metatext);
	P(fz_device, d1_rect); P(fz_device, container_len); P(fz_device, container_cap); P(fz_device, container);
	P(fz_device, passthrough);
	P(fz_stext_char, c); P(fz_stext_char, quad); P(fz_stext_char, next);
	P(fz_stext_line, first_char); P(fz_stext_line, next);
	P(fz_stext_block, type); P(fz_stext_block, bbox); P(fz_stext_block, u); P(fz_stext_block, next);
	P(fz_stext_struct, first_block); P(fz_stext_page, first_block);
	return 0;
}
`

// TestMuPDFLayout checks that the structures mupdf.h declares by hand (the device, whose callbacks the tee device
// sets, and the structured text that the text walk reads) have MuPDF 1.28's layout.
func TestMuPDFLayout(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/gen2brain/go-fitz").Output()
	if err != nil {
		t.Skipf("go-fitz module not found: %v", err)
	}
	inc := filepath.Join(strings.TrimSpace(string(out)), "include")
	if _, err := os.Stat(filepath.Join(inc, "mupdf", "fitz.h")); err != nil {
		t.Skipf("MuPDF headers not found: %v", err)
	}
	_, file, _, _ := runtime.Caller(0)
	dir, tmp := filepath.Dir(file), t.TempDir()
	src := filepath.Join(tmp, "probe.c")
	if err := os.WriteFile(src, []byte(layoutProbe), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(name string, flags ...string) string {
		exe := filepath.Join(tmp, name)
		args := append(flags, "-o", exe, src)
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("compile %s: %v\n%s", name, err, b)
		}
		b, err := exec.Command(exe).Output()
		if err != nil {
			t.Fatalf("run %s: %v", name, err)
		}
		return string(b)
	}
	ours, real := run("ours", "-I"+dir), run("real", "-DREAL", "-I"+inc)
	if ours != real {
		t.Errorf("mupdf.h's layout differs from MuPDF's headers:\nmupdf.h:\n%s\nMuPDF:\n%s", ours, real)
	}
}
