//go:build unix

package regularfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.pdf")
	if err := os.WriteFile(file, []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.pdf")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pdf")
	if err := os.Symlink(outside, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	fifo := filepath.Join(dir, "pipe.pdf")
	hasFIFO := syscall.Mkfifo(fifo, 0o644) == nil

	f, st, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "inside" || st.Size() != 6 {
		t.Errorf("regular file: read %q, size %d", b, st.Size())
	}

	tests := []struct {
		name, path string
		follow     bool
		want       string // "" for a regular file read as "outside"
	}{
		{"a link found in a folder", link, false, "a symbolic link"},
		{"a link a person named", link, true, ""},
		{"a folder", dir, true, "a folder"},
		{"a character device", "/dev/zero", true, "a character device"},
		{"a named pipe", fifo, true, "a named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == fifo && !hasFIFO {
				t.Skip("not on this system")
			}
			open := Open
			if tt.follow {
				open = OpenFollow
			}
			f, _, err := open(tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(f)
				f.Close()
				if string(b) != "outside" {
					t.Errorf("read %q", b)
				}
				return
			}
			if err == nil {
				f.Close()
				t.Fatalf("%s opened", tt.path)
			}
			var nr *NotRegularError
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &nr) || nr.Path != tt.path {
				t.Fatalf("error %v, want ErrNotRegular naming the path", err)
			}
			if got := err.Error(); !strings.Contains(got, tt.want) || !strings.Contains(got, tt.path) {
				t.Errorf("error %q does not name the path and %q", got, tt.want)
			}
		})
	}
}

func TestOpenBeneath(t *testing.T) {
	real := t.TempDir()
	outside := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(real, "sub", "deep", "a.pdf"), "inside")
	write(filepath.Join(outside, "deep", "a.pdf"), "outside")
	write(filepath.Join(outside, "secret.pdf"), "outside")
	// The walked folder itself is reached through a link a person made: that one is followed.
	root := filepath.Join(t.TempDir(), "root-link")
	if err := os.Symlink(real, root); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(real, "swapped")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.pdf"), filepath.Join(real, "sub", "link.pdf")); err != nil {
		t.Fatal(err)
	}
	hasFIFO := syscall.Mkfifo(filepath.Join(real, "sub", "pipe.pdf"), 0o644) == nil

	f, st, err := OpenBeneath(root, filepath.Join(root, "sub", "deep", "a.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "inside" || st.Size() != 6 {
		t.Errorf("read %q, size %d", b, st.Size())
	}

	tests := []struct {
		name, path, want string
	}{
		{"a folder below swapped for a link", filepath.Join(root, "swapped", "deep", "a.pdf"), "reached through the symbolic link swapped"},
		{"a link as the last component", filepath.Join(root, "sub", "link.pdf"), "a symbolic link"},
		{"a named pipe", filepath.Join(root, "sub", "pipe.pdf"), "a named pipe"},
		{"a folder", filepath.Join(root, "sub", "deep"), "a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasSuffix(tt.path, "pipe.pdf") && !hasFIFO {
				t.Skip("no named pipes here")
			}
			f, _, err := OpenBeneath(root, tt.path)
			if err == nil {
				b, _ := io.ReadAll(f)
				f.Close()
				t.Fatalf("%s opened (read %q)", tt.path, b)
			}
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q, want ErrNotRegular naming the path and %q", err, tt.want)
			}
		})
	}
	for _, p := range []string{root, filepath.Join(outside, "secret.pdf"), filepath.Join(root, "..", "x.pdf")} {
		if f, _, err := OpenBeneath(root, p); err == nil {
			f.Close()
			t.Errorf("%s opened though it is not below %s", p, root)
		}
	}
	if _, _, err := OpenBeneath(root, filepath.Join(root, "sub", "missing.pdf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}
