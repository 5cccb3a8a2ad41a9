//go:build !windows

package instance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// endpointName is the unix socket in the data directory; its mode (0600) keeps other users out, so no token.
const endpointName = "proofglass.sock"

func listen(dataDir string) (net.Listener, string, string, error) {
	path, err := socketPath(dataDir)
	if err != nil {
		return nil, "", "", err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, "", "", fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", "", fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, "", "", fmt.Errorf("restrict %s: %w", path, err)
	}
	return ln, path, "", nil
}

func dial(ctx context.Context, dataDir string) (net.Conn, string, error) {
	path, err := socketPath(dataDir)
	if err != nil {
		return nil, "", err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	return c, "", err
}

// socketPath is the socket's path in the data directory. A unix socket path is limited to about a hundred bytes, so
// a deep data directory gets its socket in the per-user runtime directory instead, named after the data directory.
func socketPath(dataDir string) (string, error) {
	p := filepath.Join(dataDir, endpointName)
	if len(p) < maxSocketPath {
		return p, nil
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return "", fmt.Errorf("socket path %s is too long and XDG_RUNTIME_DIR is unset", p)
	}
	q := filepath.Join(rt, "proofglass-"+shortHash(dataDir)+".sock")
	if len(q) >= maxSocketPath {
		return "", fmt.Errorf("socket path %s is too long", q)
	}
	return q, nil
}

// maxSocketPath is the shortest sun_path limit among the systems Proofglass targets (104 bytes on macOS, 108 on Linux).
const maxSocketPath = 104

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
