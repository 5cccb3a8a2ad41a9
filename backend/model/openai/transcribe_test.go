package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTranscribeRequestShape(t *testing.T) {
	var gotModel, gotFile, gotName, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		gotAuth = r.Header.Get("Authorization")
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		gotModel = r.FormValue("model")
		f, h, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := io.ReadAll(f)
		gotFile, gotName = string(b), h.Filename
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"text":"four score and seven years ago"}`)
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/v1", Options{APIKey: "sk-secret"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Transcriber("whisper-1").Transcribe(context.Background(), []byte("RIFF....WAVE"), "clip-0.wav")
	if err != nil {
		t.Fatal(err)
	}
	if text != "four score and seven years ago" || gotModel != "whisper-1" || gotFile != "RIFF....WAVE" ||
		gotName != "clip-0.wav" || gotAuth != "Bearer sk-secret" {
		t.Errorf("text %q model %q file %q name %q auth %q", text, gotModel, gotFile, gotName, gotAuth)
	}
}

func TestTranscribeErrors(t *testing.T) {
	cases := map[string]struct {
		status int
		body   string
		want   string
	}{
		"unknown model": {404, `{"error":{"message":"The model 'whisper-9' does not exist","type":"invalid_request_error"}}`, "model not found"},
		"not json":      {200, `<html>`, "not a transcription"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			}))
			defer srv.Close()
			cl, _ := New(srv.URL+"/v1", Options{APIKey: "sk-secret"})
			_, err := cl.Transcriber("whisper-9").Transcribe(context.Background(), []byte("x"), "a.wav")
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "sk-secret") {
				t.Fatalf("err = %v, want %q (and no key)", err, c.want)
			}
		})
	}
}
