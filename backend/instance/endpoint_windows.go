package instance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"proofglass/backend/atomicfile"
)

// endpointName is, on Windows, a file in the data directory naming the loopback port the primary listens on and the
// token a request must carry. Not a unix socket: Windows has AF_UNIX only from Windows 10 1803 and Wine not at all,
// and loopback TCP works everywhere; the token (in the per-user %AppData%) keeps other local users out.
const endpointName = "proofglass.port"

type endpointFile struct {
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

// portListener removes the endpoint file when it closes.
type portListener struct {
	net.Listener
	path string
}

func (l portListener) Close() error {
	err := l.Listener.Close()
	if e := os.Remove(l.path); err == nil && e != nil && !errors.Is(e, os.ErrNotExist) {
		err = e
	}
	return err
}

func listen(dataDir string) (net.Listener, string, string, error) {
	path := filepath.Join(dataDir, endpointName)
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, "", "", fmt.Errorf("make a token: %w", err)
	}
	token := hex.EncodeToString(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", "", fmt.Errorf("listen on loopback: %w", err)
	}
	data, _ := json.Marshal(endpointFile{Addr: ln.Addr().String(), Token: token})
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		ln.Close()
		return nil, "", "", fmt.Errorf("write %s: %w", path, err)
	}
	return portListener{ln, path}, path, token, nil
}

func dial(ctx context.Context, dataDir string) (net.Conn, string, error) {
	path := filepath.Join(dataDir, endpointName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	var e endpointFile
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, "", fmt.Errorf("%s is damaged: %w", path, err)
	}
	if host, _, err := net.SplitHostPort(e.Addr); err != nil || host != "127.0.0.1" {
		return nil, "", fmt.Errorf("%s names %q, not a loopback address", path, e.Addr)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", e.Addr)
	if err != nil {
		return nil, "", fmt.Errorf("connect to %s (from %s): %w", e.Addr, path, err)
	}
	return c, e.Token, nil
}
