package ingest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"proofglass/backend/config"
	"proofglass/backend/kb"
	"proofglass/backend/search"
)

// A scripted Whisper endpoint (no speech model runs here): the settings turn transcription on, and each clip's
// transcript lands in its unit's text, where search finds it.
func TestVideoTranscriptsFromConfiguredEndpoint(t *testing.T) {
	needTool(t, "ffprobe", "ffmpeg")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.ParseMultipartForm(8<<20) != nil || r.FormValue("model") != "whisper-test" {
			http.Error(w, "bad request", 400)
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := io.ReadAll(f)
		if !strings.HasPrefix(string(b), "RIFF") {
			http.Error(w, "not wav", 400)
			return
		}
		calls.Add(1)
		io.WriteString(w, `{"text":"hello from the forensics lighthouse keeper"}`)
	}))
	defer srv.Close()

	dir := t.TempDir()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SetProvider(config.Provider{Name: "whisper", Kind: config.KindOpenAI, BaseURL: srv.URL + "/v1"})
	cfg.Settings.Ingest.Transcription = config.Transcription{Provider: "whisper", Model: "whisper-test"}
	k := openKB(t, dir)
	in := New(k, cfg, Options{PDF: workerOptions(), Workers: 1, NoOCR: true})
	defer in.Close()

	r := addOne(t, in, "videos", testdata(t, "video", "forensics-movie-hello.mp4"))
	if r.Error != "" || r.Document.Status != kb.StatusReady {
		t.Fatalf("ingest: %+v", r)
	}
	us := units(t, k, r.Document.ID)
	if len(us) == 0 || calls.Load() != int32(len(us)) {
		t.Fatalf("%d clips, %d transcriptions", len(us), calls.Load())
	}
	for _, u := range us {
		if u.TextSource != kb.TextTranscript || !strings.Contains(u.Text, "lighthouse keeper") {
			t.Errorf("clip %d: source %s, text %q", u.Ordinal, u.TextSource, u.Text)
		}
	}
	res, err := search.New(k, search.Options{}).Search(context.Background(), search.Query{Text: "lighthouse", Mode: search.BM25})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].DocumentID != r.Document.ID {
		t.Fatalf("search for a spoken word: %+v %v", res.Hits, err)
	}
}
