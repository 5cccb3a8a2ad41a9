package cli

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"proofglass/backend/config"
)

// fixtureToken and fixtureKey are what the last release stored in testdata/loupe-last-release.tar.gz (its README).
const (
	fixtureToken = "19faa31d49782561c081ea7422cc2413"
	fixtureKey   = "sk-legacy-fixture-0001"
	fixturePDFPw = "pdf-password/5c0683d687e2e020fe172b1dcb7c29fe94f67bc40f038fee2391de610053fc16"
)

// untarLegacy unpacks the last release's data directory as parent/loupe.
func untarLegacy(t *testing.T, parent string) string {
	t.Helper()
	f, err := os.Open("testdata/loupe-last-release.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(parent, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, os.FileMode(h.Mode)&0o777); err != nil {
				t.Fatal(err)
			}
		}
	}
	return filepath.Join(parent, "loupe")
}

// newBinary runs the test binary as the proofglass CLI in a new process, with only the environment given (plus PATH),
// and returns its stdout and stderr.
func newBinary(t *testing.T, env []string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{asProofglassEnv + "=1", "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("proofglass %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func docNames(t *testing.T, jsonLines string) []string {
	t.Helper()
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(jsonLines), "\n") {
		var d struct{ Name, Status string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("not a document: %q", l)
		}
		if d.Status != "ready" {
			t.Errorf("%s is %s, want ready", d.Name, d.Status)
		}
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// The new binary started where the last release (Loupe) left its library, settings and keys finds all of it: the
// default data directory is moved once, with one message; documents list and search as before; the server token,
// the provider profile with its API key and the remembered PDF password are there.
func TestUpgradeFromLoupeDefaultDataDir(t *testing.T) {
	xdg := t.TempDir()
	untarLegacy(t, xdg)
	env := []string{"XDG_DATA_HOME=" + xdg, "HOME=" + t.TempDir()}

	out, errOut := newBinary(t, env, "documents", "list", "--json")
	if got, want := docNames(t, out), []string{"gettysburg-address.pdf", "locked.pdf"}; !slices.Equal(got, want) {
		t.Errorf("documents after the upgrade: %q, want %q", got, want)
	}
	newDir := filepath.Join(xdg, "proofglass")
	wantMsg := "Loupe is now Proofglass: your library moved from " + filepath.Join(xdg, "loupe") + " to " + newDir
	if strings.Count(errOut, wantMsg) != 1 {
		t.Errorf("first start said %q, want the one message %q", errOut, wantMsg)
	}
	if _, err := os.Stat(filepath.Join(xdg, "loupe")); !os.IsNotExist(err) {
		t.Errorf("the old data directory is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(newDir, "proofglass.db")); err != nil {
		t.Errorf("no proofglass.db in the new data directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(newDir, "loupe.db")); !os.IsNotExist(err) {
		t.Errorf("loupe.db still in the new data directory (%v)", err)
	}

	_, errOut = newBinary(t, env, "collections", "list")
	if strings.Contains(errOut, "Loupe") {
		t.Errorf("the second start spoke of Loupe again: %q", errOut)
	}
	out, _ = newBinary(t, env, "search", "four score and seven years ago", "--k", "1", "--json")
	if !strings.Contains(out, `"doc":"gettysburg-address.pdf"`) {
		t.Errorf("search over the adopted library: %s", out)
	}
	out, _ = newBinary(t, env, "serve", "token")
	if strings.TrimSpace(out) != fixtureToken {
		t.Errorf("server token %q, want the stored %q", strings.TrimSpace(out), fixtureToken)
	}
	out, _ = newBinary(t, env, "doctor", "--offline", "--json")
	if !strings.Contains(out, `"name":"database"`) || strings.Contains(out, `"status":"fail"`) {
		t.Errorf("doctor on the adopted library:\n%s", out)
	}

	cfg, err := config.Load(newDir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.Provider("gpu-box")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "gpu-box" || p.ChatModel != "Qwen2.5-VL-7B-Instruct" || p.APIKey != fixtureKey {
		t.Errorf("provider profile after the upgrade: %s %q key %q, want gpu-box Qwen2.5-VL-7B-Instruct %q", p.Name, p.ChatModel, p.APIKey, fixtureKey)
	}
	if pw, err := cfg.Secrets.Get(fixturePDFPw); err != nil || pw != "view" {
		t.Errorf("remembered PDF password: %q, %v", pw, err)
	}
}

// A data directory named explicitly (--data, or the old LOUPE_DATA, which still works with a warning) keeps its
// place; only its database file takes the new name.
func TestUpgradeFromLoupeExplicitDataDir(t *testing.T) {
	for name, how := range map[string]func(dir string) ([]string, []string){
		"--data":     func(dir string) ([]string, []string) { return nil, []string{"--data", dir} },
		"LOUPE_DATA": func(dir string) ([]string, []string) { return []string{"LOUPE_DATA=" + dir}, nil },
	} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "library")
			if err := os.Rename(untarLegacy(t, parent), dir); err != nil {
				t.Fatal(err)
			}
			env, flags := how(dir)
			env = append(env, "XDG_DATA_HOME="+t.TempDir(), "HOME="+t.TempDir())
			out, errOut := newBinary(t, env, append(flags, "documents", "list", "--json")...)
			if got := docNames(t, out); len(got) != 2 {
				t.Errorf("documents: %q", got)
			}
			if _, err := os.Stat(filepath.Join(dir, "proofglass.db")); err != nil {
				t.Errorf("database not renamed: %v", err)
			}
			if !strings.Contains(errOut, filepath.Join(dir, "loupe.db")+" was renamed proofglass.db") {
				t.Errorf("no message about the renamed database: %q", errOut)
			}
			warned := strings.Contains(errOut, "LOUPE_DATA is read for one more release") &&
				strings.Contains(errOut, "PROOFGLASS_DATA")
			if warned != (name == "LOUPE_DATA") {
				t.Errorf("warning about LOUPE_DATA: %v, want %v (%q)", warned, name == "LOUPE_DATA", errOut)
			}
		})
	}
}

// A folder named loupe without this app's database (GNOME's image viewer may own one) is never adopted, and a new
// library that exists already is never replaced.
func TestUpgradeLeavesOtherFoldersAlone(t *testing.T) {
	t.Run("GNOME's folder", func(t *testing.T) {
		xdg := t.TempDir()
		gnome := filepath.Join(xdg, "loupe")
		if err := os.MkdirAll(gnome, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gnome, "state.ini"), []byte("[viewer]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		env := []string{"XDG_DATA_HOME=" + xdg, "HOME=" + t.TempDir()}
		out, errOut := newBinary(t, env, "documents", "list", "--json")
		if strings.TrimSpace(out) != "" || strings.Contains(errOut, "Loupe") {
			t.Errorf("a folder without loupe.db was taken: %q %q", out, errOut)
		}
		if b, err := os.ReadFile(filepath.Join(gnome, "state.ini")); err != nil || string(b) != "[viewer]\n" {
			t.Errorf("GNOME's folder changed: %q %v", b, err)
		}
	})
	t.Run("new library exists", func(t *testing.T) {
		xdg := t.TempDir()
		old := untarLegacy(t, xdg)
		env := []string{"XDG_DATA_HOME=" + xdg, "HOME=" + t.TempDir()}
		newBinary(t, env, "--data", filepath.Join(xdg, "proofglass"), "collections", "create", "fresh")
		out, _ := newBinary(t, env, "collections", "list")
		if !strings.Contains(out, "fresh") || strings.Contains(out, "papers") {
			t.Errorf("the existing new library was not the one opened: %s", out)
		}
		if _, err := os.Stat(filepath.Join(old, "loupe.db")); err != nil {
			t.Errorf("the old library was touched although a new one exists: %v", err)
		}
	})
}
