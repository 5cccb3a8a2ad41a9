package modeltest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// KeyServer is an OpenAI-compatible /models endpoint that lists one model and records the Authorization header of
// every request: where a stored API key was sent, and where it was not.
type KeyServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

// NewKeyServer starts a KeyServer listing model; it stops when the test ends.
func NewKeyServer(t testing.TB, model string) *KeyServer {
	s := &KeyServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model"}]}`, model)
	}))
	t.Cleanup(s.Close)
	return s
}

// Authorizations are the Authorization headers received, in order.
func (s *KeyServer) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// SawKey reports whether any request carried key in its Authorization header.
func (s *KeyServer) SawKey(key string) bool {
	for _, a := range s.Authorizations() {
		if strings.Contains(a, key) {
			return true
		}
	}
	return false
}
