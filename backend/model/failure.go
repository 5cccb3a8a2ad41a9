package model

import (
	"context"
	"errors"
	"net"
	"syscall"

	"proofglass/backend/model/transport"
)

// Failure codes: why a model call failed, for a window that says it in the user's language (its catalogues translate
// backend.model.<code>) beside the English error. A code's meaning never changes.
const (
	FailureUnreachable  = "unreachable"   // nothing answers at the server's address
	FailureTimeout      = "timeout"       // the server stopped sending within the time allowed
	FailureUnauthorized = "unauthorized"  // the server refused the API key (401/403)
	FailureRateLimited  = "rate_limited"  // too many requests or quota used up (429)
	FailureServer       = "server_error"  // the server failed (5xx)
	FailureBadRequest   = "bad_request"   // the server rejected the request (other 4xx)
	FailureNotFound     = "model_missing" // the server does not have the model
	FailureNoVision     = "no_vision"     // the model does not take images
	FailureNoChat       = "no_chat"       // the model does not chat (an embedding model)
	FailureIncomplete   = "incomplete"    // the reply ended before the model finished
)

// FailureCode names why a model call failed ("" when err is none of the known failures).
func FailureCode(err error) string {
	var se *transport.StatusError
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrModelNotFound):
		return FailureNotFound
	case errors.Is(err, ErrNoVision):
		return FailureNoVision
	case errors.Is(err, ErrNoChat):
		return FailureNoChat
	case errors.Is(err, ErrIncompleteStream):
		return FailureIncomplete
	case errors.Is(err, transport.ErrIdleTimeout), errors.Is(err, context.DeadlineExceeded):
		return FailureTimeout
	case errors.As(err, &se):
		switch {
		case transport.LooksLikeModelNotFound(se.Code, se.Kind, se.Message):
			return FailureNotFound
		case se.Code == 401 || se.Code == 403:
			return FailureUnauthorized
		case se.Code == 429:
			return FailureRateLimited
		case se.Code >= 500:
			return FailureServer
		case se.Code >= 400:
			return FailureBadRequest
		}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return FailureUnreachable
	case errors.As(err, &ne) && ne.Timeout():
		return FailureTimeout
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return FailureUnreachable
	}
	return ""
}
