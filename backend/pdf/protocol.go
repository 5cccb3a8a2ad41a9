package pdf

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// The worker protocol: each message is a frame of
//
//	uint32 big-endian header length | header (JSON) | uint32 big-endian payload length | payload (raw bytes)
//
// on the worker's stdin (requests) and stdout (responses), one request in flight at a time. The payload carries
// image bytes so they are not base64-encoded inside JSON.

// maxFrame bounds a frame so a corrupted stream fails fast instead of allocating gigabytes.
const maxFrame = 512 << 20

type request struct {
	ID       uint64         `json:"id"`
	Op       string         `json:"op"` // open, page, render, close
	Doc      int            `json:"doc,omitempty"`
	Path     string         `json:"path,omitempty"`
	Password string         `json:"password,omitempty"`
	MIME     string         `json:"mime,omitempty"` // open: the document's type; "" for a PDF
	Limits   *Limits        `json:"limits,omitempty"`
	Page     int            `json:"page,omitempty"`
	PageOpts *PageOptions   `json:"page_opts,omitempty"`
	Render   *RenderRequest `json:"render,omitempty"`
}

type wireError struct {
	Kind   string `json:"kind"` // password, password_wrong, damaged, other
	Msg    string `json:"msg"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason,omitempty"`
	Format string `json:"format,omitempty"`
}

type response struct {
	ID   uint64     `json:"id"`
	Err  *wireError `json:"err,omitempty"`
	Doc  int        `json:"doc,omitempty"`
	Info *Info      `json:"info,omitempty"`
	Page *Page      `json:"page,omitempty"`
	// A page answer's payload is its words (appendWords: WordsLen bytes), its text (TextLen bytes of UTF-8) and
	// its thumbnail (the rest).
	WordsLen int       `json:"words_len,omitempty"`
	TextLen  int       `json:"text_len,omitempty"`
	Rendered *Rendered `json:"rendered,omitempty"`
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	switch e := err.(type) {
	case *PasswordError:
		k := "password"
		if e.Wrong {
			k = "password_wrong"
		}
		return &wireError{Kind: k, Msg: e.Error(), Path: e.Path}
	case *DamagedError:
		return &wireError{Kind: "damaged", Msg: e.Error(), Path: e.Path, Reason: e.Reason, Format: e.Format}
	}
	return &wireError{Kind: "other", Msg: err.Error()}
}

func (w *wireError) err() error {
	switch w.Kind {
	case "password":
		return &PasswordError{Path: w.Path}
	case "password_wrong":
		return &PasswordError{Path: w.Path, Wrong: true}
	case "damaged":
		return &DamagedError{Path: w.Path, Reason: w.Reason, Format: w.Format}
	}
	return fmt.Errorf("%s", w.Msg)
}

func writeFrame(w io.Writer, header any, payload []byte) error {
	h, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(h)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(n[:], uint32(len(payload)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if len(payload) > 0 {
		if _, err := w.Write(payload); err != nil {
			return err
		}
	}
	return nil
}

func readFrame(r io.Reader, header any) ([]byte, error) {
	h, err := readChunk(r)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(h, header); err != nil {
		return nil, fmt.Errorf("decode frame header: %w", err)
	}
	p, err := readChunk(r)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return p, err
}

func readChunk(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes exceeds the %d limit", size, maxFrame)
	}
	if size == 0 {
		return nil, nil
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// appendWords appends words to b as, for each, uvarint text length | text | 4 float64 box | uvarint line.
func appendWords(b []byte, words []Word) []byte {
	for _, w := range words {
		b = appendWord(b, w.Text, w.Box, w.Line)
	}
	return b
}

// appendWord appends one word as appendWords does.
func appendWord[T string | []byte](b []byte, text T, box Box, line int) []byte {
	b = binary.AppendUvarint(b, uint64(len(text)))
	b = append(b, text...)
	for _, f := range [4]float64{box.X0, box.Y0, box.X1, box.Y1} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return binary.AppendUvarint(b, uint64(line))
}

var errWords = errors.New("malformed word list from worker")

// readWords decodes what appendWords wrote. The words' texts are substrings of one string made of all of b: one
// allocation per page instead of one per word.
func readWords(b []byte) ([]Word, error) {
	if len(b) == 0 {
		return nil, nil
	}
	all := string(b)
	// A word takes at least 34 bytes (empty text, one-byte line): a capacity that rarely needs to grow.
	out := make([]Word, 0, len(b)/40+1)
	err := eachWord(b, func(start, end int, box Box, line int) {
		out = append(out, Word{Text: all[start:end], Box: box, Line: line})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachWord calls fn with each word appendWords wrote to b, in order; the word's text is b[start:end].
func eachWord(b []byte, fn func(start, end int, box Box, line int)) error {
	for off := 0; off < len(b); {
		n, k := binary.Uvarint(b[off:])
		if k <= 0 || uint64(len(b)-off-k) < n+32 {
			return errWords
		}
		start := off + k
		off = start + int(n)
		var f [4]float64
		for i := range f {
			f[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[off:]))
			off += 8
		}
		line, k := binary.Uvarint(b[off:])
		if k <= 0 {
			return errWords
		}
		off += k
		fn(start, start+int(n), Box{f[0], f[1], f[2], f[3]}, int(line))
	}
	return nil
}
