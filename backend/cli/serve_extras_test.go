package cli

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/fixture"
	"proofglass/backend/kb"
)

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeMCPAndWatch runs `proofglass serve` as a user would: its /mcp answers the SDK's client behind the token, and a
// folder recorded with `proofglass watch add` is synced while it serves.
func TestServeMCPAndWatch(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 24, 24))
	img.Set(5, 5, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "red.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "watch", "add", dir, "--collection", "inbox"); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := NewRoot()
	out := &syncBuffer{}
	root.SetOut(out)
	root.SetErr(out)
	root.SetArgs([]string{"--data", data, "serve", "--addr", "127.0.0.1:0", "--token", "tok-serve-test-5b2e91"})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	var base string
	fixture.WaitFor(t, 30*time.Second, func() bool {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}, "serve to start")

	// Without the token /mcp is refused; with it the SDK's client lists the tools.
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/mcp without a token: %s", resp.Status)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearerRT{"tok-serve-test-5b2e91"}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 7 { // search, ask, compare, list_documents, get_page, get_table, summarize_document
		t.Fatalf("tools %v %v", tools, err)
	}

	// The watched folder's image arrives in the library, and list_documents sees it.
	k := openData(t, data)
	defer k.Close()
	fixture.WaitFor(t, 60*time.Second, func() bool {
		ds, _ := k.Docs.Documents(ctx, 0)
		return len(ds) == 1 && ds[0].Name == "red.png" && ds[0].Status == kb.StatusReady
	}, "the watched folder's red.png to be synced")
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_documents", Arguments: map[string]any{"collection": "inbox"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "red.png") {
		t.Fatalf("list_documents: %v %+v", err, res)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
