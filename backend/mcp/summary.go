package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/library"
	"proofglass/backend/summary"
)

// maxModelName bounds the model name a client may name.
const maxModelName = 200

// SummaryIn is the summarize_document tool's input.
type SummaryIn struct {
	DocumentID  int64  `json:"document_id" jsonschema:"the document (ids from list_documents or search)"`
	Model       string `json:"model,omitempty" jsonschema:"chat model to write the summary (default: the configured chat model)"`
	OutlineOnly bool   `json:"outline_only,omitempty" jsonschema:"only the outline read from the text layer: no model call"`
	Refresh     bool   `json:"refresh,omitempty" jsonschema:"ask the model again even when a summary is stored"`
}

// SummaryOut is the summarize_document tool's structured result: the outline always, the summary unless
// outline_only (or when the model failed: then error says why).
type SummaryOut struct {
	Outline summary.Glance   `json:"outline"`
	Summary *summary.Summary `json:"summary,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func checkModelName(s string) error {
	if utf8.RuneCountInString(s) > maxModelName || !utf8.ValidString(s) {
		return fmt.Errorf("model must be at most %d characters of text", maxModelName)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return errors.New("model must be a model name, without spaces or control characters")
		}
	}
	return nil
}

func (s *Server) summarizeDocument(ctx context.Context, _ *sdk.CallToolRequest, in SummaryIn) (*sdk.CallToolResult, SummaryOut, error) {
	var out SummaryOut
	if in.DocumentID <= 0 {
		return nil, out, errors.New("give document_id (a positive number)")
	}
	if err := checkModelName(in.Model); err != nil {
		return nil, out, err
	}
	if in.OutlineOnly {
		g, err := s.lib.Outline(ctx, in.DocumentID)
		if err != nil {
			return nil, out, err
		}
		out.Outline = g
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: g.Markdown()}}}, out, nil
	}
	sum, err := s.lib.Summarize(ctx, in.DocumentID, library.SummaryRequest{Model: in.Model, Refresh: in.Refresh})
	if err != nil {
		if sum.Outline.DocumentID == 0 {
			return nil, out, err
		}
		// the model failed: the outline still answers, and the error says what went wrong
		out.Outline, out.Error = sum.Outline, err.Error()
		text := "The summary failed: " + err.Error() + "\n\n" + sum.Outline.Markdown()
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
	}
	out.Outline = sum.Outline
	sum.Outline = summary.Glance{}
	out.Summary = &sum
	view := sum
	view.Outline = out.Outline
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.TrimSpace(view.Markdown())}}}, out, nil
}
