package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/zalando/go-keyring"
)

// Where no keyring answers (a headless server, no Secret Service, Credential Manager refusing), the key goes to the
// owner-only file in the data directory and is read back from there.
func TestSecretFallsBackToFileWithoutKeyring(t *testing.T) {
	keyring.MockInitWithError(errors.New("no keyring here"))
	dir := t.TempDir()
	s := DefaultSecretStore(dir)
	if err := s.Set("provider/x/api_key", "sk-file"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "secrets.json"))
	if err != nil {
		t.Fatalf("no fallback file: %v", err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 { // Windows: the per-user ACL of %AppData% instead
		t.Errorf("fallback file mode %v, want 0600", st.Mode().Perm())
	}
	if v, err := DefaultSecretStore(dir).Get("provider/x/api_key"); err != nil || v != "sk-file" {
		t.Errorf("read back = %q, %v", v, err)
	}
}
