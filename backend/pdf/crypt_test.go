//go:build cgo

package pdf

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestDamagedEncryptionDictionary: bad-encryption-length.pdf's dictionary lacks its key /Length; no password opens
// it as written, so it is reported as damaged with the reason, never as "password required" (the library would
// ask for a password forever). Files with sound dictionaries still ask for their password.
func TestDamagedEncryptionDictionary(t *testing.T) {
	c := testClient(t, Options{})
	ctx := context.Background()
	path := testdata(t, "bad/pdf/qpdf/bad-encryption-length.pdf")
	for _, pw := range []string{"", "some guess"} {
		_, err := c.Open(ctx, path, pw)
		if !errors.Is(err, ErrDamaged) || errors.Is(err, ErrPasswordRequired) {
			t.Fatalf("password %q: err = %v, want damaged, not password required", pw, err)
		}
		for _, want := range []string{path, "damaged encryption dictionary", "/Length", "128-bit"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("password %q: %q does not say %q", pw, err, want)
			}
		}
	}
	if _, err := c.Open(ctx, testdata(t, "bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf"), ""); !errors.Is(err, ErrPasswordRequired) {
		t.Errorf("a sound encrypted file: %v, want password required", err)
	}
}

// TestAuthenticatesKnownFiles checks the key computation against files whose passwords are known.
func TestAuthenticatesKnownFiles(t *testing.T) {
	cases := map[string]struct {
		file, password string
		bits           int
	}{
		"R3 128-bit, user view":   {"bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf", "view", 128},
		"R2 40-bit, user view":    {"bad/pdf/qpdf/enc-R2,V1,U=view,O=master.pdf", "view", 40},
		"R3 128-bit, empty user":  {"bad/pdf/qpdf/enc-R3,V2,O=master.pdf", "", 128},
		"damaged: empty, 128-bit": {"bad/pdf/qpdf/bad-encryption-length.pdf", "", 128},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, ok := cryptDictOf(testdata(t, tc.file))
			if !ok {
				t.Fatal("no encryption dictionary read")
			}
			if !d.authenticates(tc.password, tc.bits/8) {
				t.Errorf("password %q with %d bits does not authenticate", tc.password, tc.bits)
			}
			if d.authenticates(tc.password+"x", tc.bits/8) {
				t.Errorf("a wrong password authenticates")
			}
		})
	}
}
