package cli

import (
	"context"
	"fmt"
	"time"

	"proofglass/backend/config"
	"proofglass/backend/doctor"
	"proofglass/backend/model/provider"
	"proofglass/backend/rerank"
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
	if c, ok := rerankCheck(ctx, cfg); ok {
		out = append(out, c)
	}
	return out
}

// rerankCheck runs the configured reranker once on two sample texts; ok is false when none is configured. A
// failing reranker does not fail a search (the first stage answers), so the check is optional.
func rerankCheck(ctx context.Context, cfg *config.Config) (doctor.Check, bool) {
	c := doctor.Check{Name: "reranker", Optional: true}
	rr, r, err := rerank.FromConfig(cfg)
	if err == nil && rr == nil {
		return c, false
	}
	fix := "start the reranker's server, or correct rerank and its profile in settings (proofglass rerank set …), or turn it off (proofglass rerank off)"
	if err != nil {
		c.Detail, c.Fix = err.Error(), fix
		return c, true
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	sensible, err := rerank.Check(ctx, rr)
	switch {
	case err != nil:
		c.Detail, c.Fix = err.Error()+" (searches answer in first-stage order)", fix
	case !sensible:
		c.OK = true
		c.Detail = fmt.Sprintf("%s answers, but ranked the wrong sample first (%d ms): is it a reranker model?", rr.Name(), time.Since(start).Milliseconds())
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%s: %d pages per search, %d ms", rr.Name(), r.Depth(), time.Since(start).Milliseconds())
	}
	return c, true
}
