package probe

import (
	"context"
	"fmt"

	"proofglass/backend/config"
	"proofglass/backend/model/provider"
)

// Profile probes a profile's chat model for what mode needs, with the step and top-k limits its runs use under the
// agent settings s (zero: the mode's defaults): what `proofglass doctor --model` and the window's model check run.
func Profile(ctx context.Context, p config.Provider, modelName string, mode Mode, s config.AgentDefaults) ([]Result, error) {
	set, err := provider.New(p, provider.Options{Transport: provider.TestTransport()})
	if err != nil {
		return nil, err
	}
	if set.Chat == nil {
		return nil, fmt.Errorf("provider %s (%s) cannot chat", p.Name, p.Kind)
	}
	o := Options{Mode: mode, Kind: p.Kind, ContextLength: p.ContextLength, TopK: s.TopK, MaxSteps: s.MaxSteps(mode.String())}
	return Run(ctx, set.Chat, modelName, o), nil
}
