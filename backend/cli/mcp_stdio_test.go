package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rpcReply is a JSON-RPC response as `proofglass mcp` writes it.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestMCPStdioMalformedLines runs `proofglass mcp` as a process over pipes and sends it every kind of malformed line,
// each followed by a ping: each malformed line gets its JSON-RPC error (id null where the id could not be read), the
// ping is answered, and the session lives on to list its tools.
func TestMCPStdioMalformedLines(t *testing.T) {
	data := t.TempDir()
	cmd := exec.Command(os.Args[0], "--data", data, "mcp")
	cmd.Env = append(os.Environ(), asProofglassEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("proofglass mcp exited with %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("proofglass mcp did not exit when its input ended")
		}
	}()
	replies := make(chan rpcReply)
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r rpcReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r.Error = &struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				}{0, "stdout carried a line that is not JSON: " + sc.Text()}
			}
			replies <- r
		}
	}()
	next := func(t *testing.T) rpcReply {
		t.Helper()
		select {
		case r, ok := <-replies:
			if !ok {
				t.Fatalf("proofglass mcp closed its output (the session ended)\n%s", stderr.String())
			}
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("no reply within 30 s\n%s", stderr.String())
		}
		panic("unreachable")
	}
	send := func(t *testing.T, line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write: %v (the process is gone?)\n%s", err, stderr.String())
		}
	}

	send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := next(t); string(r.ID) != "0" || r.Error != nil || len(r.Result) == 0 {
		t.Fatalf("initialize: %+v", r)
	}
	send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	huge := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":"` + strings.Repeat("a", 17<<20) + `"}}`
	for i, c := range []struct {
		name, line string
		code       int    // 0: no error expected for this line (only the ping's answer)
		id         string // the id the error must carry
	}{
		{"not JSON", `{not json}`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"null id (MCP forbids it)", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{"id beyond 64 bits", `{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}`, -32600, "null"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\xfe\"}", -32700, "null"},
		{"invalid UTF-8 outside strings", "\xc3\x28", -32700, "null"},
		{"a 17 MB line", huge, -32600, "null"},
		{"a line one byte over 16 MiB", strings.Repeat("a", 16<<20+1), -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"a number", `42`, -32600, "null"},
		{"a string", `"hello"`, -32600, "null"},
		{"version 1.0", `{"jsonrpc":"1.0","id":9,"method":"ping"}`, -32600, "9"},
		{"no version", `{"id":10,"method":"ping"}`, -32600, "10"},
		{"method not a string", `{"jsonrpc":"2.0","id":11,"method":42}`, -32600, "11"},
		{"params a string", `{"jsonrpc":"2.0","id":12,"method":"ping","params":"x"}`, -32600, "12"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":13}`, -32600, "13"},
		{"result and error", `{"jsonrpc":"2.0","id":"x","result":{},"error":{"code":1,"message":"m"}}`, -32600, `"x"`},
		{"trailing data", `{"jsonrpc":"2.0","id":14,"method":"ping"} trailing`, -32700, "null"},
		{"cut short", `{"jsonrpc":"2.0","id":15,`, -32700, "null"},
		{"nested 100,000 deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32700, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":16,"method":"no/such/method"}`, -32601, "16"},
		{"a blank line", `   `, 0, ""},
		{"CRLF line end", "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"ping\"}\r", 0, "17"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ping := 1000 + i
			send(t, c.line)
			send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, ping))
			r := next(t)
			if c.code != 0 {
				if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id {
					t.Fatalf("reply %s %+v, want error %d with id %s", r.ID, r.Error, c.code, c.id)
				}
				r = next(t)
			} else if c.id != "" { // a well-formed request: answered as any other
				if r.Error != nil || string(r.ID) != c.id {
					t.Fatalf("reply %s %+v, want the answer to id %s", r.ID, r.Error, c.id)
				}
				r = next(t)
			}
			if string(r.ID) != fmt.Sprint(ping) || r.Error != nil {
				t.Fatalf("the ping after it: reply %s %+v", r.ID, r.Error)
			}
		})
	}
	send(t, `{"jsonrpc":"2.0","id":2000,"method":"tools/list"}`)
	if r := next(t); string(r.ID) != "2000" || r.Error != nil || !strings.Contains(string(r.Result), `"name":"ask"`) {
		t.Fatalf("tools/list after the malformed lines: %s %+v", r.ID, r.Error)
	}
}
