package filegate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestGate(t *testing.T) {
	dir := t.TempDir()
	chosen := filepath.Join(dir, "chat.md")
	cases := map[string]struct {
		choose  string // "" = no dialog
		write   string
		twice   bool
		wantErr error
	}{
		"the chosen path is written":         {chosen, chosen, false, nil},
		"a path never chosen is refused":     {"", filepath.Join(dir, "other.md"), false, ErrNotChosen},
		"another path than chosen refused":   {chosen, filepath.Join(dir, "bashrc.md"), false, ErrNotChosen},
		"a second write to it is refused":    {chosen, chosen, true, ErrNotChosen},
		"a relative path is refused":         {chosen, "chat.md", false, ErrNotChosen},
		"a dotted path to elsewhere refused": {chosen, filepath.Join(dir, "..", filepath.Base(dir)+"x", "chat.md"), false, ErrNotChosen},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			os.Remove(chosen)
			g := &Gate{Exts: []string{".md", ".html"}}
			if tc.choose != "" {
				g.Choose(tc.choose)
			}
			err := g.Write(tc.write, []byte("# hi"))
			if tc.twice {
				if err != nil {
					t.Fatalf("first write: %v", err)
				}
				err = g.Write(tc.write, []byte("# again"))
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			b, rerr := os.ReadFile(tc.write)
			switch {
			case tc.wantErr == nil && string(b) != "# hi":
				t.Errorf("file holds %q %v", b, rerr)
			case tc.wantErr != nil && !tc.twice && rerr == nil:
				t.Errorf("a refused write created %s", tc.write)
			case tc.twice && string(b) != "# hi":
				t.Errorf("second write changed the file: %q", b)
			}
		})
	}
}

func TestGateExtensionAndCancel(t *testing.T) {
	dir := t.TempDir()
	g := &Gate{Exts: []string{".md", ".html"}}
	sh := filepath.Join(dir, "x.sh")
	g.Choose(sh)
	if err := g.Write(sh, []byte("echo")); err == nil {
		t.Error("a chosen .sh path was written")
	}
	md := filepath.Join(dir, "x.md")
	g.Choose(md)
	g.Choose("") // cancelled dialog forgets the earlier choice
	if err := g.Write(md, []byte("x")); !errors.Is(err, ErrNotChosen) {
		t.Errorf("after a cancelled dialog: %v", err)
	}
}

// Claim takes the one write a choice allows without writing (a caller streams a large file itself): once, only the
// chosen path, only an allowed extension.
func TestGateClaim(t *testing.T) {
	dir := t.TempDir()
	g := &Gate{Exts: []string{".zip"}}
	zip := filepath.Join(dir, "lib.zip")
	if err := g.Claim(zip); !errors.Is(err, ErrNotChosen) {
		t.Fatalf("claim before a choice: %v", err)
	}
	g.Choose(zip)
	if err := g.Claim(filepath.Join(dir, "other.zip")); !errors.Is(err, ErrNotChosen) {
		t.Fatalf("claim of another path: %v", err)
	}
	if err := g.Claim("lib.zip"); !errors.Is(err, ErrNotChosen) {
		t.Fatalf("claim of a relative path: %v", err)
	}
	if err := g.Claim(zip); err != nil {
		t.Fatalf("claim of the chosen path: %v", err)
	}
	if err := g.Claim(zip); !errors.Is(err, ErrNotChosen) {
		t.Fatalf("second claim: %v", err)
	}
	if _, err := os.Stat(zip); !os.IsNotExist(err) {
		t.Fatalf("a claim wrote the file: %v", err)
	}
	tar := filepath.Join(dir, "lib.tar")
	g.Choose(tar)
	if err := g.Claim(tar); err == nil || errors.Is(err, ErrNotChosen) {
		t.Fatalf("claim of a .tar with only .zip allowed: %v", err)
	}
}
