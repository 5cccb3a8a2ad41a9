package server

import (
	"crypto/rand"
	"errors"
	"fmt"

	"proofglass/backend/config"
)

var randRead = rand.Read

// tokenKey is the secret-store key of the server's bearer token.
const tokenKey = "server/token"

// Token returns the server's bearer token from the secret store, creating one on first use.
func Token(cfg *config.Config) (string, error) {
	t, err := cfg.Secrets.Get(tokenKey)
	if err == nil && t != "" {
		return t, nil
	}
	if err != nil && !errors.Is(err, config.ErrNoSecret) {
		return "", err
	}
	t, err = NewToken()
	if err != nil {
		return "", err
	}
	return t, cfg.Secrets.Set(tokenKey, t)
}

// Fingerprint identifies a token in logs without revealing it.
func Fingerprint(t string) string { return tokenFingerprint(t) }

// MinTokenLength is the shortest bearer token the server accepts: a token is the only thing between the port and
// the library, so one a person can guess (or a test's "tok") is refused. Generated tokens have 32 characters.
const MinTokenLength = 16

// minTokenDistinct is the fewest different characters a token may have ("aaaaaaaaaaaaaaaa" is 16 long but no secret).
const minTokenDistinct = 6

// CheckToken says why a bearer token is too weak to serve with, or nil.
func CheckToken(t string) error {
	n, distinct := 0, map[rune]bool{}
	for _, r := range t {
		if r <= ' ' || r == 0x7f {
			return errors.New("the token contains spaces or control characters: use letters, digits and punctuation only")
		}
		n++
		distinct[r] = true
	}
	if n < MinTokenLength {
		return fmt.Errorf("the token has %d characters; a bearer token needs at least %d (leave it out to use the stored "+
			"one, printed by `proofglass serve token`, or make one with `openssl rand -hex 16`)", n, MinTokenLength)
	}
	if len(distinct) < minTokenDistinct {
		return fmt.Errorf("the token repeats %d different characters; a bearer token needs at least %d, randomly chosen "+
			"(make one with `openssl rand -hex 16`)", len(distinct), minTokenDistinct)
	}
	return nil
}
