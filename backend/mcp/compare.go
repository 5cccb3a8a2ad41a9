package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/compare"
	"proofglass/backend/library"
)

// maxCompareMarkdown bounds the Markdown text of a comparison in a result; every cell is in the structured one.
const maxCompareMarkdown = 40000

// CompareIn is the compare tool's input.
type CompareIn struct {
	Items       []string `json:"items" jsonschema:"what to ask of every document or filter: one row each (1 to 20)"`
	DocumentIDs []int64  `json:"document_ids,omitempty" jsonschema:"documents to compare, one column each (ids from list_documents)"`
	Where       []string `json:"where,omitempty" jsonschema:"facet filters to compare, one column each, e.g. year=2022 and year=2023"`
	Collection  string   `json:"collection,omitempty" jsonschema:"look in this collection only"`
	Mode        string   `json:"mode,omitempty" jsonschema:"agent: vrag (default from settings), vimrag, vanilla or react"`
	Provider    string   `json:"provider,omitempty" jsonschema:"model provider profile (default from settings)"`
	Model       string   `json:"model,omitempty" jsonschema:"chat model (default: the provider's)"`
	Parallel    int      `json:"parallel,omitempty" jsonschema:"runs at once, 1 to 8 (default 3)"`
}

// CompareOut is the compare tool's structured result: the table, a cell per item and target.
type CompareOut struct {
	compare.Table
}

func (s *Server) compare(ctx context.Context, req *sdk.CallToolRequest, in CompareIn) (*sdk.CallToolResult, CompareOut, error) {
	var out CompareOut
	if len(in.DocumentIDs)+len(in.Where) > compare.MaxTargets {
		return nil, out, fmt.Errorf("%d documents and filters, at most %d", len(in.DocumentIDs)+len(in.Where), compare.MaxTargets)
	}
	var targets []compare.Target
	for _, id := range in.DocumentIDs {
		if id <= 0 {
			return nil, out, fmt.Errorf("document_ids: %d is not a document id", id)
		}
		targets = append(targets, compare.Target{Doc: strconv.FormatInt(id, 10)})
	}
	for _, w := range in.Where {
		targets = append(targets, compare.Target{Where: w})
	}
	if in.Collection != "" && !utf8.ValidString(in.Collection) {
		return nil, out, errors.New("collection is not valid UTF-8")
	}
	ctx, cancel := s.callContext(ctx, req.Extra)
	defer cancel()
	token := req.Params.GetProgressToken()
	ended := 0
	creq := compare.Request{Items: in.Items, Targets: targets, Collection: in.Collection, Mode: in.Mode, Parallel: in.Parallel,
		Options: library.RunOptions{Provider: in.Provider, Model: in.Model}, Chat: s.opt.Chat, Log: s.log,
		Slot: s.waitSlot,
		Progress: func(ev compare.Event) {
			if ev.Cell == nil || token == nil {
				return
			}
			ended++
			msg := fmt.Sprintf("item %d × target %d: %s", ev.Item+1, ev.Column+1, ev.State)
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
				Progress: float64(ended), Total: float64(len(in.Items) * len(targets)), Message: msg}); err != nil {
				s.log.Debug("mcp: progress", "err", err)
			}
		}}
	t, err := compare.Compare(ctx, s.lib, creq)
	if err != nil && ctx.Err() != nil {
		return nil, out, fmt.Errorf("compare stopped: %w", context.Cause(ctx))
	}
	if err != nil {
		return nil, out, err
	}
	out.Table = t
	md := compare.Markdown(t)
	if utf8.RuneCountInString(md) > maxCompareMarkdown {
		md = string([]rune(md)[:maxCompareMarkdown]) + "\n… (cut; every cell is in the structured result)"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: md}}}, out, nil
}

// waitSlot takes a run slot for one cell of a comparison, waiting while every slot is busy (a comparison's cells
// queue behind the server's other runs instead of failing) until ctx ends.
func (s *Server) waitSlot(ctx context.Context) (func(), error) {
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		release, err := s.opt.RunSlot(ctx)
		if err == nil {
			return release, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (waited for a run slot: %v)", context.Cause(ctx), err)
		case <-time.After(wait):
		}
	}
}
