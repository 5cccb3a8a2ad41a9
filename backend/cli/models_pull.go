package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"proofglass/backend/config"
	"proofglass/backend/model/ollama"
	"proofglass/backend/model/provider"
)

// pullCommand is `proofglass models pull NAME`: an Ollama server downloads a model, with progress.
func pullCommand(g *Globals) *cobra.Command {
	var prov string
	cmd := &cobra.Command{
		Use:   "pull NAME",
		Short: "Have an Ollama server download a model (e.g. qwen2.5vl:7b), showing progress",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := config.Load(g.DataDir)
			if err != nil {
				return err
			}
			if prov == "" {
				prov = config.KindOllama
				if p, err := cfg.Provider(""); err == nil && p.Kind == config.KindOllama {
					prov = p.Name
				}
			}
			p, err := cfg.Provider(prov)
			if err != nil {
				return err
			}
			if p.Kind != config.KindOllama {
				return fmt.Errorf("provider %s is %s: only Ollama servers pull models (for vLLM, name the model in `vllm serve`)", p.Name, p.Kind)
			}
			set, err := provider.New(p, provider.Options{})
			if err != nil {
				return err
			}
			c, ok := set.Chat.(*ollama.Client)
			if !ok {
				return fmt.Errorf("provider %s: no Ollama client", p.Name)
			}
			w := cmd.OutOrStdout()
			pr := &pullPrinter{w: w}
			if err := c.Pull(cmd.Context(), args[0], pr.print); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s is ready on %s (%s)\n", args[0], p.Name, p.BaseURL)
			return nil
		},
	}
	cmd.Flags().StringVar(&prov, "provider", "", "Ollama provider profile (default: the agent's if it is Ollama, else the first Ollama profile)")
	return cmd
}

// pullPrinter prints one line per status, and a layer's byte progress in steps of 10 %.
type pullPrinter struct {
	w      io.Writer
	status string
	pct    int
}

func (p *pullPrinter) print(pp ollama.PullProgress) {
	if pp.Status != p.status {
		p.status, p.pct = pp.Status, -1
		if pp.Total == 0 {
			fmt.Fprintln(p.w, pp.Status)
			return
		}
	}
	if pp.Total > 0 {
		pct := int(pp.Completed * 100 / pp.Total)
		if pct/10 != p.pct/10 || pct == 100 && p.pct != 100 {
			p.pct = pct
			fmt.Fprintf(p.w, "%s: %3d%% of %.1f MB\n", pp.Status, pct, float64(pp.Total)/1e6)
		}
	}
}
