package mcp

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BenchmarkParseLine measures the checks a stdio line passes before the SDK sees it, against the SDK's own decoding
// of the same line (the baseline: what every message cost before).
func BenchmarkParseLine(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search","arguments":{"query":"blood loss ` +
		`after surgery","k":5,"images":1,"image_width":512,"collection":"reports"}}}`)
	b.Run("checked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, code, why := parseLine(line); code != 0 {
				b.Fatal(why)
			}
		}
	})
	b.Run("sdk decode only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v json.RawMessage
			if err := json.Unmarshal(line, &v); err != nil {
				b.Fatal(err)
			}
			if _, err := jsonrpc.DecodeMessage(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
