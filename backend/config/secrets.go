package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/zalando/go-keyring"

	"proofglass/backend/atomicfile"
)

// ErrNoSecret is returned when a secret is not stored.
var ErrNoSecret = errors.New("secret not set")

// SecretStore keeps API keys out of the settings file.
type SecretStore interface {
	Get(key string) (string, error)
	Set(key, value string) error
	Delete(key string) error
}

const keyringService = "proofglass"

// DefaultSecretStore uses the OS keyring and falls back to a 0600 file in the data directory where no keyring
// answers (a headless server, CI, a desktop without a Secret Service).
func DefaultSecretStore(dataDir string) SecretStore {
	return &fallbackStore{primary: osKeyring{}, fallback: &FileStore{Path: filepath.Join(dataDir, "secrets.json")}}
}

type osKeyring struct{}

func (osKeyring) Get(key string) (string, error) {
	v, err := keyring.Get(keyringService, key)
	if errors.Is(err, keyring.ErrNotFound) {
		return moveLegacySecret(key)
	}
	return v, err
}

// moveLegacySecret moves a key Loupe stored under its own keyring service to this app's, on first use: the keyring
// cannot list a service's keys, so each moves when it is first asked for.
func moveLegacySecret(key string) (string, error) {
	v, err := keyring.Get(legacyKeyring, key)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNoSecret
	}
	if err != nil {
		return "", err
	}
	if err := keyring.Set(keyringService, key, v); err != nil {
		return v, nil // still readable where it was; moved next time
	}
	_ = keyring.Delete(legacyKeyring, key)
	return v, nil
}
func (osKeyring) Set(key, value string) error { return keyring.Set(keyringService, key, value) }
func (osKeyring) Delete(key string) error {
	err := keyring.Delete(keyringService, key)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

type fallbackStore struct {
	primary, fallback SecretStore
}

func (s *fallbackStore) Get(key string) (string, error) {
	v, err := s.primary.Get(key)
	if err == nil {
		return v, nil
	}
	return s.fallback.Get(key)
}

func (s *fallbackStore) Set(key, value string) error {
	if err := s.primary.Set(key, value); err == nil {
		_ = s.fallback.Delete(key) // one home per secret
		return nil
	}
	return s.fallback.Set(key, value)
}

func (s *fallbackStore) Delete(key string) error {
	err1 := s.primary.Delete(key)
	err2 := s.fallback.Delete(key)
	if err2 != nil {
		return err2
	}
	_ = err1 // no keyring is not an error when deleting
	return nil
}

// FileStore keeps secrets in a JSON file readable only by its owner (mode 0600).
type FileStore struct {
	Path string
	mu   sync.Mutex
}

func (f *FileStore) load() (map[string]string, error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read secrets %s: %w", f.Path, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("secrets file %s is damaged: %w", f.Path, err)
	}
	return m, nil
}

func (f *FileStore) Get(key string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return "", err
	}
	v, ok := m[key]
	if !ok {
		return "", ErrNoSecret
	}
	return v, nil
}

func (f *FileStore) Set(key, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	m[key] = value
	return f.save(m)
}

func (f *FileStore) Delete(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := m[key]; !ok {
		return nil
	}
	delete(m, key)
	return f.save(m)
}

func (f *FileStore) save(m map[string]string) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode secrets: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(f.Path), err)
	}
	return atomicfile.Write(f.Path, b, 0o600)
}

// ForgetSecrets deletes every secret Proofglass stored for this user: its OS keyring entries (Credential Manager,
// the Secret Service or the macOS keychain, shared by every data directory) and dataDir's fallback file. The
// keyring's failure is returned apart (keyringErr): a desktop with no keyring holds nothing to forget.
func ForgetSecrets(dataDir string) (keyringErr, err error) {
	if e := keyring.DeleteAll(keyringService); e != nil && !errors.Is(e, keyring.ErrNotFound) {
		keyringErr = fmt.Errorf("the OS keyring: %w", e)
	}
	p := filepath.Join(dataDir, "secrets.json")
	if e := os.Remove(p); e != nil && !errors.Is(e, fs.ErrNotExist) {
		err = fmt.Errorf("remove %s: %w", p, e)
	}
	return keyringErr, err
}
