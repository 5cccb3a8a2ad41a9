package ollama

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"proofglass/backend/fixture"
	"proofglass/backend/model"
)

// debugServer starts a private `ollama serve` from ../shared/tools/ollama-e2e's build at trace level
// (OLLAMA_DEBUG=2), on a free port, over the same registered models; the trace log holds every rendered prompt
// ("completion request" prompt=…). It skips when that build is absent.
func debugServer(t *testing.T) (*Client, string) {
	t.Helper()
	dir := os.Getenv("OLLAMA_E2E_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip("no cache dir: ", err)
		}
		dir = filepath.Join(cache, "loupe-ollama-e2e")
	}
	bin, models := filepath.Join(dir, "bin", "ollama"), filepath.Join(dir, "ollama-models")
	if _, err := os.Stat(filepath.Join(models, "manifests")); err != nil {
		t.Skipf("no ollama-e2e build in %s (run ../shared/tools/ollama-e2e/up.sh): %v", dir, err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no ollama binary at %s: %v", bin, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logPath := filepath.Join(t.TempDir(), "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+addr, "OLLAMA_MODELS="+models, "HOME="+t.TempDir(), "OLLAMA_DEBUG=2",
		"OLLAMA_NOPRUNE=1", "OLLAMA_NO_CLOUD=1", "OLLAMA_KEEP_ALIVE=30s")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The server and the runners it started share its process group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
	})
	base := "http://" + addr
	fixture.WaitFor(t, 60*time.Second, func() bool {
		resp, err := http.Get(base + "/api/version")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, "the private ollama to answer")
	c, err := New(base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, logPath
}

// renderedPrompts reads the prompts the server rendered, in order.
func renderedPrompts(t *testing.T, logPath string) []string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, `msg="completion request" prompt=`); i >= 0 {
			out = append(out, line[i+len(`msg="completion request" prompt=`):])
		}
	}
	return out
}

func solidPNG(t *testing.T, c color.RGBA) *model.Image {
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return &model.Image{Data: b.Bytes(), MIME: "image/png"}
}

// TestE2ERenderedPromptKeepsLabelsAndSystemLine: the prompt the real server renders for tiny-vision (a template
// model) keeps VimRAG's "Picture N:" labels right before their images, where a plain message would put both images
// first; and the system line Proofglass sends for vrag is in it.
func TestE2ERenderedPromptKeepsLabelsAndSystemLine(t *testing.T) {
	c, logPath := debugServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	red, blue := solidPNG(t, color.RGBA{R: 220}), solidPNG(t, color.RGBA{B: 220})
	send := func(msgs []model.Message) {
		t.Helper()
		st, err := c.Chat(ctx, model.Request{Model: "tiny-vision", Messages: msgs, Options: model.Options{Temperature: model.Float(0), MaxTokens: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := model.Collect(st); err != nil {
			t.Fatal(err)
		}
	}
	// VimRAG's search results turn, as the agent builds it.
	send([]model.Message{{Role: model.RoleUser, Parts: []model.Part{
		{Text: "<tool_response>\nHere are the retrieved information:"}, {Text: "Picture 1:"}, {Image: red},
		{Text: "Picture 2:"}, {Image: blue}, {Text: "\n</tool_response>"}}}})
	// What Ollama does with the same parts as one plain message (text joined, images listed): the control.
	w, _, err := c.buildRequest(model.Request{Model: "tiny-vision"}, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Messages = append(w.Messages, apiMessage("user", "<tool_response>\nHere are the retrieved information:Picture 1:Picture 2:\n</tool_response>", red, blue))
	w.Options = map[string]any{"temperature": 0, "num_predict": 1}
	if err := c.api.Chat(ctx, w, func(apiChatResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// vrag's first call: Qwen's default system line, then the prompt.
	send([]model.Message{model.TextMessage(model.RoleSystem, "You are a helpful assistant."), model.TextMessage(model.RoleUser, "Answer the given question.")})

	var prompts []string
	fixture.WaitFor(t, 10*time.Second, func() bool {
		prompts = renderedPrompts(t, logPath)
		return len(prompts) >= 3
	}, "3 rendered prompts in the trace log")
	labelled, plain, system := prompts[0], prompts[1], prompts[2]
	t.Logf("Proofglass's message rendered: %s", labelled)
	t.Logf("a plain message rendered: %s", plain)
	t.Logf("vrag's first call rendered: %s", system)
	p1, i0, p2, i1 := strings.Index(labelled, "Picture 1:"), strings.Index(labelled, "[img-0]"), strings.Index(labelled, "Picture 2:"), strings.Index(labelled, "[img-1]")
	if p1 < 0 || !(p1 < i0 && i0 < p2 && p2 < i1) || !strings.Contains(labelled, "Picture 1:[img-0]Picture 2:[img-1]") {
		t.Fatalf("labels not next to their images: %s", labelled)
	}
	if !strings.Contains(plain, "[img-0][img-1]") || strings.Index(plain, "[img-1]") > strings.Index(plain, "Picture 1:") {
		t.Fatalf("control: Ollama was expected to put a plain message's images first: %s", plain)
	}
	if !strings.Contains(system, "You are a helpful assistant.") {
		t.Fatalf("system line missing from the rendered prompt: %s", system)
	}
}

type apiChatResponse = api.ChatResponse

func apiMessage(role, content string, imgs ...*model.Image) api.Message {
	m := api.Message{Role: role, Content: content}
	for _, i := range imgs {
		m.Images = append(m.Images, api.ImageData(i.Data))
	}
	return m
}
