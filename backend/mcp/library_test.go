package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/library"
	"proofglass/backend/model/modeltest"
)

// connectInMemory serves lib's MCP tools, with opt, to a client in this process.
func connectInMemory(t *testing.T, lib *library.Library, opt Options) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := sdk.NewInMemoryTransports()
	go New(lib, opt).srv.Run(ctx, st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its text content and whether it is an error result.
func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool, any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text + "\n")
		}
	}
	return text.String(), res.IsError, res.StructuredContent
}

// MCP's ask goes through the library's use case, so it runs with the settings' step bound (search's refusals are
// the library's too: exercise checks them).
func TestAskTakesTheSettingsStepBound(t *testing.T) {
	l := newLibrary(t)
	lib := l.open(t)

	// A model that searches forever: the run stops at the settings' bound, one model call per step.
	calls := map[int]int{}
	for _, bound := range []int{3, 6} {
		s := lib.Config.Current()
		s.Agent.VRAGMaxSteps = bound
		if err := lib.Config.Update(s); err != nil {
			t.Fatal(err)
		}
		chat := modeltest.Always("<search>" + l.word + "</search>")
		cs := connectInMemory(t, lib, Options{Chat: chat})
		text, isErr, structured := callText(t, cs, "ask", map[string]any{"question": "Where is it discussed?", "mode": "vrag"})
		if isErr {
			t.Fatalf("ask with bound %d: %s", bound, text)
		}
		var out AskOut
		b, _ := json.Marshal(structured)
		if err := json.Unmarshal(b, &out); err != nil || out.RunID == 0 {
			t.Fatalf("ask out %s: %v", b, err)
		}
		calls[bound] = len(chat.Requests())
	}
	if calls[3] < 3 || calls[6]-calls[3] != 3 {
		t.Errorf("model calls with bounds 3 and 6: %v, want three more with the higher bound", calls)
	}
}
