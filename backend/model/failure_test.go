package model_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"proofglass/backend/model"
	"proofglass/backend/model/transport"
)

func TestFailureCode(t *testing.T) {
	// A real refused connection: a port that was listening and is closed now.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, refused := http.Get("http://" + addr + "/v1/models")
	// A real timeout: a server that accepts and never answers within the client's limit.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	_, timedOut := (&http.Client{Timeout: 50 * time.Millisecond}).Get(hang.URL)

	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"none", nil, ""},
		{"refused", fmt.Errorf("model call 1: %w", refused), model.FailureUnreachable},
		{"client timeout", timedOut, model.FailureTimeout},
		{"idle", fmt.Errorf("read: %w", transport.ErrIdleTimeout), model.FailureTimeout},
		{"deadline", context.DeadlineExceeded, model.FailureTimeout},
		{"401", &transport.StatusError{Code: 401, Message: "invalid api key"}, model.FailureUnauthorized},
		{"403", &transport.StatusError{Code: 403}, model.FailureUnauthorized},
		{"429", fmt.Errorf("x: %w", &transport.StatusError{Code: 429, Kind: "Throttling"}), model.FailureRateLimited},
		{"503", &transport.StatusError{Code: 503}, model.FailureServer},
		{"400", &transport.StatusError{Code: 400, Message: "bad field"}, model.FailureBadRequest},
		{"404 model", &transport.StatusError{Code: 404, Message: `model "qwen" not found, try pulling it first`}, model.FailureNotFound},
		{"sentinel not found", fmt.Errorf("chat: %w", model.ErrModelNotFound), model.FailureNotFound},
		{"no vision", model.ErrNoVision, model.FailureNoVision},
		{"no chat", model.ErrNoChat, model.FailureNoChat},
		{"incomplete", model.ErrIncompleteStream, model.FailureIncomplete},
		{"dns", &net.DNSError{Err: "no such host", Name: "gpu-box.invalid", IsNotFound: true}, model.FailureUnreachable},
		{"other", errors.New("something else"), ""},
	} {
		if got := model.FailureCode(tc.err); got != tc.want {
			t.Errorf("%s: FailureCode(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}
