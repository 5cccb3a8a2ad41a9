package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// StatusError is a non-2xx answer, with the message the server put in its error body.
type StatusError struct {
	Code    int    // HTTP status
	Kind    string // provider error code or type, e.g. "InvalidParameter", "invalid_request_error"
	Message string
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	if e.Kind != "" {
		return fmt.Sprintf("HTTP %d %s: %s", e.Code, e.Kind, msg)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, msg)
}

// ReadStatusError reads an error body in any of the shapes model servers use: OpenAI's {"error":{"message",…}},
// Ollama's {"error":"…"}, DashScope's {"code","message"}, or plain text.
func ReadStatusError(resp *http.Response) *StatusError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return ParseErrorBody(resp.StatusCode, b)
}

// ParseErrorBody is ReadStatusError for a body already read.
func ParseErrorBody(code int, b []byte) *StatusError {
	e := &StatusError{Code: code}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Code    any             `json:"code"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(b, &v) != nil {
		e.Message = strings.TrimSpace(string(b))
		if len(e.Message) > 500 {
			e.Message = e.Message[:500] + "…"
		}
		return e
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			e.Message = s
			return e
		}
		var o struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		if json.Unmarshal(v.Error, &o) == nil {
			e.Message = o.Message
			e.Kind = o.Type
			if e.Kind == "" && o.Code != nil {
				e.Kind = fmt.Sprint(o.Code)
			}
			return e
		}
	}
	e.Message = v.Message
	if v.Code != nil {
		e.Kind = fmt.Sprint(v.Code)
	}
	if e.Message == "" && v.Detail != nil {
		e.Message = fmt.Sprint(v.Detail)
	}
	return e
}

// Redact replaces every occurrence of secret in s, so an error or log line never carries an API key.
func Redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// LooksLikeModelNotFound reports whether an error message says the model does not exist, in the wordings of
// Ollama ("model \"x\" not found"), vLLM ("The model `x` does not exist."), OpenAI ("model_not_found") and
// DashScope ("Model not exist.").
func LooksLikeModelNotFound(code int, kind, msg string) bool {
	m := strings.ToLower(kind + " " + msg)
	if strings.Contains(m, "model_not_found") || strings.Contains(m, "modelnotfound") {
		return true
	}
	if !strings.Contains(m, "model") {
		return false
	}
	return strings.Contains(m, "not found") || strings.Contains(m, "does not exist") || strings.Contains(m, "not exist")
}

// LooksLikeNoVision reports whether an error message says the model cannot take images (vLLM: "… is not a
// multimodal model"; others: "does not support image input", "vision").
func LooksLikeNoVision(msg string) bool {
	m := strings.ToLower(msg)
	if strings.Contains(m, "not a multimodal model") {
		return true
	}
	if strings.Contains(m, "image") || strings.Contains(m, "vision") || strings.Contains(m, "multimodal") {
		return strings.Contains(m, "not support") || strings.Contains(m, "unsupported") || strings.Contains(m, "does not accept")
	}
	return false
}
