package server

import (
	"crypto/rand"
	"errors"

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
