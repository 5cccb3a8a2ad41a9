package kbagent

import (
	"context"
	"fmt"
	"math"

	"proofglass/backend/agent"
	"proofglass/backend/kb"
)

// Frames serves a video clip's stored keyframes to the agent.
type Frames struct {
	KB *kb.KB
}

// Frames returns up to maxFrames keyframes of the clip, at most fps per second, timestamped from the clip's start.
// Keyframe times (kb.Frame.TMS) are from the start of the video, as media extracts them.
func (f *Frames) Frames(ctx context.Context, unitID string, fps float64, maxFrames int) ([]agent.Frame, error) {
	id, err := ParseID(unitID)
	if err != nil {
		return nil, err
	}
	u, err := f.KB.Content.Unit(ctx, id)
	if err != nil {
		return nil, err
	}
	stored, err := f.KB.Content.Frames(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("frames of unit %d: %w", id, err)
	}
	picked := sample(stored, fps, maxFrames)
	out := make([]agent.Frame, 0, len(picked))
	for _, fr := range picked {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		img, err := decodeBlob(f.KB, fr.Blob)
		if err != nil {
			return nil, fmt.Errorf("frame at %d ms of unit %d: %w", fr.TMS, id, err)
		}
		out = append(out, agent.Frame{TimestampS: float64(max(0, fr.TMS-u.TStartMS)) / 1000, Image: img})
	}
	return out, nil
}

// sample keeps frames at least 1/fps apart, then thins them evenly to maxFrames.
func sample(fs []kb.Frame, fps float64, maxFrames int) []kb.Frame {
	var kept []kb.Frame
	gap := int64(0)
	if fps > 0 {
		gap = int64(math.Round(1000 / fps))
	}
	for _, f := range fs {
		if len(kept) > 0 && f.TMS-kept[len(kept)-1].TMS < gap {
			continue
		}
		kept = append(kept, f)
	}
	if maxFrames <= 0 || len(kept) <= maxFrames {
		return kept
	}
	out := make([]kb.Frame, maxFrames)
	for i := range out {
		out[i] = kept[i*len(kept)/maxFrames]
	}
	return out
}
