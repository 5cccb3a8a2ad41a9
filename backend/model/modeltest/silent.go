package modeltest

import (
	"net/http"
	"sync/atomic"
)

// Silent is a model server that accepts every request and never answers: it holds each one until its client gives
// up. Tests of look-up bounds, run limits and cancellation point a provider at it and count what it still holds.
type Silent struct {
	seen, held atomic.Int64
}

func (s *Silent) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	s.seen.Add(1)
	s.held.Add(1)
	defer s.held.Add(-1)
	<-r.Context().Done()
}

// Seen is how many requests arrived.
func (s *Silent) Seen() int64 { return s.seen.Load() }

// Held is how many requests are waiting now (their clients have not given up).
func (s *Silent) Held() int64 { return s.held.Load() }
