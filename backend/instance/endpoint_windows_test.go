package instance

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On Windows the endpoint is a loopback port named, with its token, in a file in the data directory; a request
// without the token is refused before its paths are looked at.
func TestWindowsEndpointNeedsItsToken(t *testing.T) {
	data := tempDir(t)
	_, c := claim(t, data)
	b, err := os.ReadFile(filepath.Join(data, endpointName))
	if err != nil {
		t.Fatal(err)
	}
	var e endpointFile
	if err := json.Unmarshal(b, &e); err != nil || !strings.HasPrefix(e.Addr, "127.0.0.1:") || len(e.Token) != 64 {
		t.Fatalf("endpoint file %s: %+v, %v", b, e, err)
	}
	for name, tok := range map[string]string{"none": "", "wrong": strings.Repeat("0", 64)} {
		t.Run(name, func(t *testing.T) {
			conn, _, err := dial(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			req, _ := json.Marshal(request{Token: tok, Paths: []string{file(t, tempDir(t), "a.pdf")}})
			conn.Write(append(req, '\n'))
			line, _ := bufio.NewReader(conn).ReadString('\n')
			if !strings.Contains(line, `"ok":false`) || !strings.Contains(line, "wrong token") {
				t.Fatalf("answer %q, want a refusal", line)
			}
		})
	}
	if got := c.calls(); len(got) != 0 {
		t.Fatalf("handler called with %q", got)
	}
}
