package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/zalando/go-keyring"
)

// On Windows the API keys go to Credential Manager (go-keyring's wincred backend: a generic credential named
// "proofglass:<key>"), not to the fallback file. It writes the Credential Manager of whoever runs it, so it runs only
// when asked: scripts/windows-test.sh asks, in a throwaway Wine prefix.
func TestCredentialManagerKeepsTheSecret(t *testing.T) {
	if os.Getenv("PROOFGLASS_TEST_CREDENTIAL_MANAGER") != "1" {
		t.Skip("writes this user's Credential Manager; set PROOFGLASS_TEST_CREDENTIAL_MANAGER=1 (scripts/windows-test.sh does, under Wine)")
	}
	dir := wineTempDir(t)
	key := "provider/windows-test/api_key"
	s := DefaultSecretStore(dir)
	if err := s.Set(key, "sk-credential-manager"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Delete(key) })
	if _, err := os.Stat(filepath.Join(dir, "secrets.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the secret went to the fallback file, not Credential Manager (%v)", err)
	}
	if v, err := keyring.Get(keyringService, key); err != nil || v != "sk-credential-manager" {
		t.Fatalf("CredRead of %s:%s = %q, %v", keyringService, key, v, err)
	}
	// Another data directory (no file of its own) reads it from Credential Manager too.
	if v, err := DefaultSecretStore(wineTempDir(t)).Get(key); err != nil || v != "sk-credential-manager" {
		t.Fatalf("read back = %q, %v", v, err)
	}
	if err := s.Delete(key); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(keyringService, key); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("after Delete: %v, want not found", err)
	}
	t.Logf("stored, read back and deleted %s:%s in Credential Manager", keyringService, key)
}

// wineTempDir is t.TempDir without its failing cleanup under Wine 8, which lacks the POSIX-semantics delete
// os.RemoveAll uses on Windows ("Invalid function"); what it leaves is in a throwaway prefix.
func wineTempDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "proofglass-config-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(d); err != nil {
			t.Logf("left %s: %v", d, err)
		}
	})
	return d
}
