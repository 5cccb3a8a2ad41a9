package mcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/tables"
)

// maxTableMarkdown bounds the Markdown text of a table in a result, as maxPageText bounds a page's.
const maxTableMarkdown = 20000

// TableIn is get_table's input.
type TableIn struct {
	DocumentID int64 `json:"document_id" jsonschema:"the document (an id from list_documents or search)"`
	Page       int   `json:"page" jsonschema:"the page, from 1"`
	Table      int   `json:"table,omitempty" jsonschema:"which table of the page, from 1 top to bottom (default 1)"`
}

// TableOut is get_table's structured result.
type TableOut struct {
	Document string `json:"document"`
	// Tables is how many tables the page has.
	Tables int              `json:"tables"`
	Table  tables.JSONTable `json:"table"`
}

func (s *Server) getTable(ctx context.Context, _ *sdk.CallToolRequest, in TableIn) (*sdk.CallToolResult, TableOut, error) {
	var out TableOut
	if in.DocumentID <= 0 || in.Page <= 0 || in.Page > math.MaxInt32 {
		return nil, out, errors.New("give document_id and page (positive numbers)")
	}
	if in.Table < 0 || in.Table > 1000 {
		return nil, out, errors.New("table must be between 1 and 1000 (or left out for the first)")
	}
	k := max(in.Table, 1)
	d, err := s.lib.KB.Docs.Document(ctx, in.DocumentID)
	if err != nil {
		return nil, out, fmt.Errorf("no document %d", in.DocumentID)
	}
	ts, err := s.lib.Tables(ctx, d.ID, in.Page)
	if err != nil {
		return nil, out, err
	}
	t, err := s.lib.Table(ctx, d.ID, in.Page, k)
	if err != nil {
		return nil, out, err
	}
	out = TableOut{Document: d.Name, Tables: len(ts), Table: tables.JSON(t)}
	desc := fmt.Sprintf("%s, page %d: table %d of %d, %d rows × %d columns", d.Name, t.Page, t.Index, len(ts), len(t.Body()), t.Columns)
	md := tables.Markdown(t)
	if utf8.RuneCountInString(md) > maxTableMarkdown {
		md = string([]rune(md)[:maxTableMarkdown]) + "\n… (cut; every cell is in the structured result)"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: desc}, &sdk.TextContent{Text: md}}}, out, nil
}
