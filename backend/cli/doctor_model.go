package cli

import (
	"context"
	"fmt"
	"slices"

	"proofglass/backend/agent"
	"proofglass/backend/config"
	"proofglass/backend/doctor"
	"proofglass/backend/model/probe"
)

// modelChecks probes one chat model for what a mode needs (`proofglass doctor --model M`).
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
	rs, err := probe.Profile(ctx, p, modelName, agent.Mode(mode), cfg.Settings.Agent)
	if err != nil {
		return nil, err
	}
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
