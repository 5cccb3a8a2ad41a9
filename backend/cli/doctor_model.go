package cli

import (
	"context"
	"fmt"
	"slices"

	"loupe/backend/agent"
	"loupe/backend/config"
	"loupe/backend/doctor"
	"loupe/backend/model/probe"
	"loupe/backend/model/provider"
)

// modelChecks probes one chat model for what a mode needs (`loupe doctor --model M`).
func modelChecks(ctx context.Context, cfg *config.Config, profile, modelName, mode string) ([]doctor.Check, error) {
	p, err := cfg.Provider(profile)
	if err != nil {
		return nil, err
	}
	if modelName == "" {
		modelName = p.ChatModel
	}
	if mode == "" {
		mode = cfg.Settings.Agent.Mode
	}
	if mode == "" {
		mode = string(agent.ModeVRAG)
	}
	if !slices.Contains(agent.Modes, agent.Mode(mode)) {
		return nil, fmt.Errorf("unknown --mode %q (want vrag, vimrag, vanilla or react)", mode)
	}
	set, err := provider.New(p, provider.Options{Transport: provider.TestTransport()})
	if err != nil {
		return nil, err
	}
	if set.Chat == nil {
		return nil, fmt.Errorf("provider %s (%s) cannot chat", p.Name, p.Kind)
	}
	m := agent.Mode(mode)
	steps := 0
	switch m {
	case agent.ModeVRAG, agent.ModeReAct:
		steps = cfg.Settings.Agent.VRAGMaxSteps
	case agent.ModeVimRAG:
		steps = cfg.Settings.Agent.VimRAGMaxSteps
	}
	rs := probe.Run(ctx, set.Chat, modelName, probe.Options{Mode: m, Kind: p.Kind, ContextLength: p.ContextLength,
		MaxSteps: steps, TopK: cfg.Settings.Agent.TopK})
	out := make([]doctor.Check, 0, len(rs))
	for _, r := range rs {
		detail := r.Detail
		if r.Skipped {
			detail += " (not checked)"
		}
		out = append(out, doctor.Check{Name: fmt.Sprintf("%s %s", mode, r.Name), OK: r.OK, Optional: r.Optional || r.Skipped,
			Detail: fmt.Sprintf("%s/%s: %s", p.Name, modelName, detail), Fix: r.Fix})
	}
	return out, nil
}
