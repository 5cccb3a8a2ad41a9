package summary

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDumpOutlines(t *testing.T) {
	rels := os.Getenv("DUMP")
	if rels == "" {
		t.Skip()
	}
	k, ids := ingested(t, strings.Split(rels, ",")...)
	for name, id := range ids {
		o, _ := Outline(context.Background(), k, id)
		b, _ := json.Marshal(o)
		fmt.Println(name, string(b))
	}
}
