package mail

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
)

// LooksLikeMbox reports whether b (the start of a file) starts as an mbox mailbox does: a "From " separator
// line, then a message's header.
func LooksLikeMbox(b []byte) bool {
	if !bytes.HasPrefix(b, []byte("From ")) {
		return false
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return false
	}
	return HeadLooksLikeMessage(b[i+1:])
}

// Mailbox calls each with every message of an mbox mailbox in order (1-based n, its raw bytes with ">From "
// quoting undone), stopping at the first error each returns. A message past MaxMessageBytes or a mailbox past
// MaxMessages ends the reading with ErrTooLarge; messages before it have been given.
func Mailbox(ctx context.Context, r io.Reader, each func(n int, raw []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var cur bytes.Buffer
	n := 0
	started := false
	flush := func() error {
		if !started {
			return nil
		}
		n++
		if n > MaxMessages {
			return fmt.Errorf("mailbox of more than %d messages: %w", MaxMessages, ErrTooLarge)
		}
		b := bytes.TrimRight(cur.Bytes(), "\r\n")
		raw := append([]byte(nil), b...)
		raw = append(raw, '\n')
		cur.Reset()
		return each(n, raw)
	}
	prevEmpty := true
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A very long line: keep reading it whole.
			full := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				full = append(full, line...)
				if len(full) > MaxMessageBytes {
					return fmt.Errorf("message %d: a line of more than %d MiB: %w", n+1, MaxMessageBytes>>20, ErrTooLarge)
				}
			}
			line = full
		}
		if len(line) > 0 {
			switch {
			case bytes.HasPrefix(line, []byte("From ")) && (prevEmpty || !started):
				if ferr := flush(); ferr != nil {
					return ferr
				}
				started = true
			case !started:
				return fmt.Errorf("%w: a mailbox starts with a \"From \" line", ErrNotMessage)
			default:
				// mboxrd quoting: ">From " (any number of '>') loses one '>'.
				if q := bytes.TrimLeft(line, ">"); len(q) < len(line) && bytes.HasPrefix(q, []byte("From ")) {
					line = line[1:]
				}
				if cur.Len()+len(line) > MaxMessageBytes {
					return fmt.Errorf("message %d of more than %d MiB: %w", n+1, MaxMessageBytes>>20, ErrTooLarge)
				}
				cur.Write(line)
			}
			prevEmpty = len(bytes.TrimRight(line, "\r\n")) == 0
		}
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			return fmt.Errorf("read mailbox: %w", err)
		}
	}
}
