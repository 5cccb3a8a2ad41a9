package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"

	"proofglass/backend/model/transport"
)

// Transcriber transcribes audio with an OpenAI-compatible /audio/transcriptions endpoint (Whisper served by vLLM,
// LocalAI, speaches, or OpenAI). It satisfies media.Transcriber.
type Transcriber struct {
	c     *Client
	model string
}

// Transcriber returns a transcriber that uses modelName, e.g. "whisper-1" or "openai/whisper-large-v3".
func (c *Client) Transcriber(modelName string) *Transcriber {
	return &Transcriber{c: c, model: modelName}
}

// Transcribe sends one audio file and returns its text.
func (t *Transcriber) Transcribe(ctx context.Context, audio []byte, name string) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("model", t.model)
	_ = w.WriteField("response_format", "json")
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		return "", err
	}
	part.Write(audio)
	if err := w.Close(); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.c.base+"/audio/transcriptions", bytes.NewReader(body.Bytes()))
	if err != nil {
		return "", fmt.Errorf("build transcription request: %w", err)
	}
	t.c.setHeaders(req.Header)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := t.c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", t.c.subject("transcribe", t.model), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", t.c.mapError("transcribe", t.model, transport.ReadStatusError(resp), false)
	}
	var out struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("%s: reply is not a transcription: %w", t.c.subject("transcribe", t.model), err)
	}
	return out.Text, nil
}
