package cli

import (
	"context"
	"fmt"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/doctor"
	"proofglass/backend/model/provider"
)

func init() { doctorEndpoints = endpointChecks }

// endpointChecks tests every provider profile. Only the agent's default provider must answer: the other profiles
// are reported for information, since a fresh install lists endpoints the user may never run.
func endpointChecks(ctx context.Context, cfg *config.Config) []doctor.Check {
	var out []doctor.Check
	for _, r := range provider.TestAll(ctx, cfg, 5*time.Second) {
		inUse := r.Name == cfg.Settings.Agent.Provider
		c := doctor.Check{Name: "model " + r.Name, OK: r.OK(), Optional: !inUse}
		switch {
		case r.OK():
			c.Detail = fmt.Sprintf("%s %s: %d model(s), %d ms", r.Kind, r.BaseURL, r.Models, r.LatencyMS)
			if r.Version != "" {
				c.Detail += ", version " + r.Version
			}
		default:
			c.Detail = fmt.Sprintf("%s %s: %s", r.Kind, r.BaseURL, r.Error)
			if !inUse {
				c.Detail += " (not the default provider; only needed if you select it)"
			}
			c.Fix = fmt.Sprintf("start the server or correct the %q profile's URL, model or key in settings (or the environment)", r.Name)
		}
		if r.Note != "" {
			c.Detail += "; " + r.Note
		}
		out = append(out, c)
	}
	return out
}
