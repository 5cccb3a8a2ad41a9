package eval

import (
	"fmt"

	"proofglass/backend/agent"
)

// ToolCallsOf lists a run's tool calls in order, one line each: "search: q", "crop: doc p.2 [x0 y0 x1 y1]",
// "memorize: node", "calculate: expr = result" (or "→ error (kind)").
func ToolCallsOf(evs []agent.Event) []string {
	out := []string{}
	for _, ev := range evs {
		switch {
		case ev.Kind == agent.KindSearch && ev.Search != nil:
			out = append(out, "search: "+ev.Search.Query)
		case ev.Kind == agent.KindCrop && ev.Crop != nil:
			b := ev.Crop.BBoxSent
			out = append(out, fmt.Sprintf("crop: %s p.%d [%g %g %g %g]", ev.Crop.DocumentName, ev.Crop.Page, b[0], b[1], b[2], b[3]))
		case ev.Kind == agent.KindMemorize && ev.Memorize != nil:
			out = append(out, "memorize: "+ev.Memorize.NodeID)
		case ev.Kind == agent.KindCalculation && ev.Calculation != nil:
			c := ev.Calculation
			if c.Error != "" {
				out = append(out, fmt.Sprintf("calculate: %s → error (%s)", c.Expression, c.ErrorKind))
			} else {
				out = append(out, "calculate: "+c.Expression+" = "+c.Text)
			}
		}
	}
	return out
}

// RolloutOptions weigh the reward of exported rollouts.
type RolloutOptions struct {
	// ToolWeight is w of ToolReward, 0..1; 0 keeps the VRAG-RL reward.
	ToolWeight float64
	// ToolBudget is n of ToolReward: the tool calls at which the efficiency term reaches 0 (≥ 1 when ToolWeight > 0).
	ToolBudget int
}

// Check refuses weights outside 0..1 and a missing budget.
func (o RolloutOptions) Check() error {
	if o.ToolWeight < 0 || o.ToolWeight > 1 {
		return fmt.Errorf("tool weight %g: want 0 to 1", o.ToolWeight)
	}
	if o.ToolWeight > 0 && o.ToolBudget < 1 {
		return fmt.Errorf("tool budget %d: want at least 1 tool call when the tool weight is %g", o.ToolBudget, o.ToolWeight)
	}
	return nil
}

// toolCount is an item's number of tool calls: the recorded ones, or its tool steps for an older item.
func toolCount(it ItemResult) int {
	if it.ToolCalls != nil {
		return len(it.ToolCalls)
	}
	return it.Cost.Steps
}

// reweigh returns the items' rewards under o and their GRPO advantages within each question and mode.
func reweigh(items []ReportItem, o RolloutOptions) (rewards, advantages []float64) {
	rewards = make([]float64, len(items))
	advantages = make([]float64, len(items))
	groups := map[[2]string][]int{}
	var order [][2]string
	for i, it := range items {
		rewards[i] = ToolReward(it.Judge, it.Format, it.NDCG, toolCount(it.ItemResult), o.ToolWeight, o.ToolBudget)
		k := [2]string{it.QuestionID, it.Mode}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		idx := groups[k]
		rs := make([]float64, len(idx))
		for j, i := range idx {
			rs[j] = rewards[i]
		}
		for j, a := range Advantages(rs) {
			advantages[idx[j]] = a
		}
	}
	return rewards, advantages
}

// toolLines keeps the tool calls of a rollout row non-nil.
func toolLines(it ItemResult) []string {
	if it.ToolCalls == nil {
		return []string{}
	}
	return append([]string(nil), it.ToolCalls...)
}
