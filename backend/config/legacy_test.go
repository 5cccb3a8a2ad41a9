package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zalando/go-keyring"
)

// A key Loupe kept under its keyring service moves to this app's on first use, and is gone from the old one.
func TestLegacyKeyringSecretMoves(t *testing.T) {
	keyring.MockInit()
	if err := keyring.Set(legacyKeyring, "provider/gpu-box/api_key", "sk-old"); err != nil {
		t.Fatal(err)
	}
	s := DefaultSecretStore(t.TempDir())
	v, err := s.Get("provider/gpu-box/api_key")
	if err != nil || v != "sk-old" {
		t.Fatalf("Get = %q, %v; want the key Loupe stored", v, err)
	}
	if v, err := keyring.Get(keyringService, "provider/gpu-box/api_key"); err != nil || v != "sk-old" {
		t.Errorf("not moved to %q: %q, %v", keyringService, v, err)
	}
	if _, err := keyring.Get(legacyKeyring, "provider/gpu-box/api_key"); err != keyring.ErrNotFound {
		t.Errorf("still under %q: %v", legacyKeyring, err)
	}
	if _, err := s.Get("provider/none/api_key"); err != ErrNoSecret {
		t.Errorf("an absent key: %v, want ErrNoSecret", err)
	}
}

func TestGetenvLegacyNames(t *testing.T) {
	cases := map[string]struct {
		set  map[string]string
		want string
	}{
		"new name":            {map[string]string{"PROOFGLASS_MODEL": "a"}, "a"},
		"old name":            {map[string]string{"LOUPE_MODEL": "b"}, "b"},
		"new wins":            {map[string]string{"PROOFGLASS_MODEL": "a", "LOUPE_MODEL": "b"}, "a"},
		"set empty wins, too": {map[string]string{"PROOFGLASS_MODEL": "", "LOUPE_MODEL": "b"}, ""},
		"neither":             {nil, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			os.Unsetenv("PROOFGLASS_MODEL")
			os.Unsetenv("LOUPE_MODEL")
			for k, v := range c.set {
				t.Setenv(k, v)
			}
			if got := Getenv("MODEL"); got != c.want {
				t.Errorf("Getenv(MODEL) = %q, want %q", got, c.want)
			}
		})
	}
}

// The old default directory moves only when it holds this app's SQLite database; a database being used by an old
// window is left alone with an error that says so.
func TestAdoptLegacyDataDir(t *testing.T) {
	sqliteHead := []byte("SQLite format 3\x00 and the rest of a page")
	cases := map[string]struct {
		db      []byte // loupe.db in the old directory; nil = none
		newFile bool   // a file in the new directory already
		moved   bool
		wantErr bool
	}{
		"our database":          {db: sqliteHead, moved: true},
		"no database":           {},
		"not SQLite":            {db: []byte("a viewer's cache")},
		"new one has files too": {db: sqliteHead, newFile: true, wantErr: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			old, neu := filepath.Join(parent, "loupe"), filepath.Join(parent, "proofglass")
			must(t, os.MkdirAll(old, 0o700))
			if c.db != nil {
				must(t, os.WriteFile(filepath.Join(old, legacyDBName), c.db, 0o600))
				must(t, os.WriteFile(filepath.Join(old, legacyDBName+"-wal"), []byte("wal"), 0o600))
			}
			if c.newFile {
				must(t, os.MkdirAll(neu, 0o700))
				must(t, os.WriteFile(filepath.Join(neu, "notes.txt"), nil, 0o600))
			}
			msg, err := adoptLegacyDataDir(neu)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			_, errDB := os.Stat(filepath.Join(neu, dbName))
			_, errWAL := os.Stat(filepath.Join(neu, dbName+"-wal"))
			if moved := errDB == nil && errWAL == nil; moved != c.moved {
				t.Errorf("moved = %v (%v, %v), want %v", moved, errDB, errWAL, c.moved)
			}
			if (msg.Message != "") != c.moved || (msg.Code == NoticeLibraryMoved) != c.moved {
				t.Errorf("notice %+v", msg)
			}
			if _, err := os.Stat(old); (err == nil) == c.moved {
				t.Errorf("old directory present = %v after moved = %v", err == nil, c.moved)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
