package pdf

/*
#include <stdlib.h>
#include "crypt.h"
*/
import "C"

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"unsafe"
)

// cryptDict is a PDF's standard-security-handler encryption dictionary, as far as diagnosing it needs.
type cryptDict struct {
	filter          string
	v, r, length    int // length: -1 missing, -2 not an integer
	p               int32
	encryptMetadata bool
	o, u, id0       []byte
}

func (e *engineDoc) cryptDict() (cryptDict, bool) {
	var c C.lp_crypt
	if C.lp_crypt_info(e.d, &c) != C.LP_OK || c.present == 0 {
		return cryptDict{}, false
	}
	bytesOf := func(p *C.uchar, n C.int) []byte {
		if n < 0 {
			return nil
		}
		return C.GoBytes(unsafe.Pointer(p), min(n, 64))
	}
	return cryptDict{
		filter: C.GoString(&c.filter[0]), v: int(c.v), r: int(c.r), length: int(c.length), p: int32(c.p),
		encryptMetadata: c.encrypt_metadata != 0,
		o:               bytesOf(&c.o[0], c.olen), u: bytesOf(&c.u[0], c.ulen), id0: bytesOf(&c.id0[0], c.idlen),
	}, true
}

// encryptionDamage says why a document that asks for a password is in fact damaged: its encryption dictionary
// is malformed, so that no password opens it as written ("" when the dictionary looks sound and the password is
// simply missing or wrong). password is the one tried ("" = none).
func (e *engineDoc) encryptionDamage(password string) string {
	d, ok := e.cryptDict()
	if !ok || d.filter != "Standard" {
		return ""
	}
	return d.damage(password)
}

func (d cryptDict) damage(password string) string {
	const prefix = "damaged encryption dictionary: "
	switch {
	case d.v < 0:
		return prefix + "/V is missing or not a number"
	case d.r < 2 || d.r > 6:
		return prefix + fmt.Sprintf("/R %d is not a revision of the standard security handler (2–6)", d.r)
	}
	if d.r >= 5 {
		if len(d.o) < 48 || len(d.u) < 48 {
			return prefix + fmt.Sprintf("/O and /U are %d and %d bytes, revision %d needs 48", len(d.o), len(d.u), d.r)
		}
		return ""
	}
	if len(d.o) < 32 || len(d.u) < 32 {
		return prefix + fmt.Sprintf("/O and /U are %d and %d bytes, revision %d needs 32", len(d.o), len(d.u), d.r)
	}
	if d.v != 1 && d.v != 2 {
		return "" // V 4 names its key length in crypt filters; not diagnosed here
	}
	validLength := d.length >= 40 && d.length <= 128 && d.length%8 == 0 && (d.r > 2 || d.length == 40)
	if d.length >= 0 && !validLength {
		return prefix + fmt.Sprintf("key /Length %d is not a multiple of 8 between 40 and 128", d.length)
	}
	// /Length missing (or not a number) means 40 bits by the specification. If the password (or the empty one)
	// opens the file with another key length, the dictionary is wrong, and asking for a password would never end.
	if d.length < 0 {
		for _, pw := range []string{password, ""} {
			for bits := 48; bits <= 128; bits += 8 {
				if d.r < 3 || !d.authenticates(pw, bits/8) {
					continue
				}
				what := "missing"
				if d.length == -2 {
					what = "not a number"
				}
				who := "the empty password"
				if pw != "" {
					who = "the password given"
				}
				return prefix + fmt.Sprintf("the key /Length is %s (so 40 bits), but %s opens the file only with a %d-bit key", what, who, bits)
			}
		}
	}
	return ""
}

// padding is the 32-byte string the standard security handler pads passwords with (ISO 32000-1, 7.6.3.3).
var padding = []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}

// authenticates checks a user password against /U for RC4 revisions 2–4 with an n-byte key (ISO 32000-1,
// algorithms 2, 4 and 5).
func (d cryptDict) authenticates(password string, n int) bool {
	pw := append([]byte(password), padding...)[:32]
	h := md5.New()
	h.Write(pw)
	h.Write(d.o[:32])
	binary.Write(h, binary.LittleEndian, d.p)
	h.Write(d.id0)
	if d.r >= 4 && !d.encryptMetadata {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	if d.r >= 3 {
		for range 50 {
			s := md5.Sum(key[:n])
			key = s[:]
		}
	}
	key = key[:n]
	if d.r == 2 {
		c, _ := rc4.NewCipher(key)
		out := make([]byte, 32)
		c.XORKeyStream(out, padding)
		return bytes.Equal(out, d.u[:32])
	}
	s := md5.Sum(append(append([]byte{}, padding...), d.id0...))
	x := s[:]
	k := make([]byte, n)
	for i := range 20 {
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		c, _ := rc4.NewCipher(k)
		c.XORKeyStream(x, x)
	}
	return bytes.Equal(x, d.u[:16])
}

// cryptDictOf reads the encryption dictionary of the PDF at path, whether or not it opens.
func cryptDictOf(path string) (cryptDict, bool) {
	lim := Limits{}.withDefaults()
	useCJKFont()
	d := C.lp_new(C.size_t(lim.MemoryBytes), C.size_t(lim.StoreBytes))
	if d == nil {
		return cryptDict{}, false
	}
	e := &engineDoc{d: d, path: path, limits: lim}
	defer e.close()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.lp_open(d, cpath); rc != C.LP_OK && rc != C.LP_NEEDS_PASSWORD {
		return cryptDict{}, false
	}
	return e.cryptDict()
}
