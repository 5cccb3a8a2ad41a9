package server

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
)

// bodyStatus says what went wrong reading a request body, as an HTTP status and a message: a body over its limit
// is 413, one that did not arrive in time (a client sending a byte a second) is 408, and anything else (malformed
// JSON, a body cut short) is 400 with no message of its own: the caller names what it expected.
func bodyStatus(err error, limit int64) (status int, msg string) {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", limit)
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return http.StatusRequestTimeout, "request body did not arrive in time: send the whole body within the read timeout"
	}
	return http.StatusBadRequest, ""
}
