package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one message on stdio: the SDK's own default, so nothing it took is refused.
const MaxLineBytes = 16 << 20

// lineTransport is MCP's stdio transport (one JSON-RPC message per line, as the specification's stdio transport
// says) that answers a malformed line with a JSON-RPC error and reads on. The SDK's own ends the session on the
// first line it cannot decode, and with it the client's session.
type lineTransport struct {
	in  io.ReadCloser
	out io.Writer
	log *slog.Logger
	max int // bytes of one line; 0 = MaxLineBytes
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{out: t.out, in: t.in, log: t.log, msgs: make(chan jsonrpc.Message), closed: make(chan struct{})}
	max := t.max
	if max <= 0 {
		max = MaxLineBytes
	}
	go c.readLoop(max)
	return c, nil
}

type lineConn struct {
	in     io.ReadCloser
	out    io.Writer
	log    *slog.Logger
	wmu    sync.Mutex // one message at a time on out
	msgs   chan jsonrpc.Message
	closed chan struct{}
	once   sync.Once
}

func (c *lineConn) SessionID() string { return "" }

// Read returns the next well-formed message; io.EOF when the input ended or the connection was closed.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m, ok := <-c.msgs:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	select {
	case <-c.closed:
		return errors.New("connection closed")
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}

// readLoop reads lines until the input ends, passing on messages and answering malformed lines itself.
func (c *lineConn) readLoop(max int) {
	defer close(c.msgs)
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, max)
		switch {
		case tooLong:
			c.refuse(nil, jsonrpc.CodeInvalidRequest, "message over "+strconv.Itoa(max)+" bytes: refused unread")
		case len(bytes.TrimSpace(line)) > 0:
			m, id, code, why := parseLine(line)
			if code != 0 {
				c.refuse(id, code, why)
				break
			}
			select {
			case c.msgs <- m:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line without its newline; a line over max bytes is read to its end and dropped (tooLong).
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		part, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(part) > max+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > max {
			return nil, true, err
		}
		return line, tooLong, err
	}
}

// refuse answers a line that is not a message (JSON-RPC 2.0 §5.1: with id null when the id could not be read).
func (c *lineConn) refuse(id json.RawMessage, code int64, why string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg := map[int64]string{jsonrpc.CodeParseError: "Parse error", jsonrpc.CodeInvalidRequest: "Invalid Request"}[code]
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg + ": " + why}})
	if err != nil {
		return
	}
	c.log.Debug("mcp: refused a malformed message", "code", code, "why", why)
	_ = c.writeLine(b)
}

// parseLine decodes one line into a message, or says why it is not one: the JSON-RPC error code, and the id to
// answer with when the line had a valid one.
func parseLine(line []byte) (m jsonrpc.Message, id json.RawMessage, code int64, why string) {
	if !utf8.Valid(line) {
		return nil, nil, jsonrpc.CodeParseError, "the line is not UTF-8"
	}
	var v json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, nil, jsonrpc.CodeParseError, "not JSON: " + err.Error()
	}
	switch v[0] {
	case '{':
	case '[':
		return nil, nil, jsonrpc.CodeInvalidRequest, "batches are not supported: send one message per line"
	default:
		return nil, nil, jsonrpc.CodeInvalidRequest, "a message must be a JSON object"
	}
	var f struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(v, &f); err != nil {
		return nil, nil, jsonrpc.CodeInvalidRequest, err.Error()
	}
	if string(f.ID) == "null" {
		// MCP forbids a null id; taken as a notification it would get no answer at all (issue 41, row 8).
		return nil, nil, jsonrpc.CodeInvalidRequest, "id must not be null: a request needs a string or integer id, a notification none"
	}
	hasID := f.ID != nil
	if hasID {
		if !validID(f.ID) {
			return nil, nil, jsonrpc.CodeInvalidRequest, "id must be a string or an integer"
		}
		id = f.ID
	}
	switch {
	case string(f.JSONRPC) != `"2.0"`:
		return nil, id, jsonrpc.CodeInvalidRequest, `"jsonrpc" must be "2.0"`
	case f.Method != nil:
		var method string
		if json.Unmarshal(f.Method, &method) != nil || method == "" {
			return nil, id, jsonrpc.CodeInvalidRequest, `"method" must be a non-empty string`
		}
		if f.Params != nil && string(f.Params) != "null" && f.Params[0] != '{' && f.Params[0] != '[' {
			return nil, id, jsonrpc.CodeInvalidRequest, `"params" must be an object or an array`
		}
	case !hasID || (f.Result == nil) == (f.Error == nil):
		return nil, id, jsonrpc.CodeInvalidRequest, `neither a request ("method") nor a response ("id" with "result" or "error")`
	}
	m, err := jsonrpc.DecodeMessage(v)
	if err != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, err.Error()
	}
	return m, id, 0, ""
}

// validID reports whether a raw id is a JSON string or an integer that fits in 64 bits.
func validID(raw json.RawMessage) bool {
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}
