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
