package media

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Transcriber turns speech into text: an OpenAI-compatible /audio/transcriptions endpoint (Whisper in vLLM,
// LocalAI, OpenAI) implements it. audio is a 16 kHz mono WAV; name is what the endpoint is told the file is.
type Transcriber interface {
	Transcribe(ctx context.Context, audio []byte, name string) (string, error)
}

// maxAudioBytes caps one clip's audio: 16 kHz mono 16-bit is 32 KB/s, so a 60 s clip is about 1.9 MB, and a
// clip of even 10 minutes stays well inside what transcription endpoints accept (25 MB for OpenAI).
const maxAudioBytes = 24 << 20

// ClipAudio cuts [start, end) seconds of path's first audio stream as a 16 kHz mono WAV, the format speech models
// are trained on.
func (o Options) ClipAudio(ctx context.Context, path string, start, end float64) ([]byte, error) {
	o = o.withDefaults()
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, o.FFmpeg, "-hide_banner", "-nostdin", "-loglevel", "error",
		"-ss", ffnum(start), "-t", ffnum(end-start), "-i", path, "-map", "0:a:0", "-vn", "-sn", "-dn",
		"-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", "pipe:1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("audio of %s at %s s: %s", path, ffnum(start), lastErrorLine(stderr.String(), err))
	}
	if out.Len() > maxAudioBytes {
		return nil, fmt.Errorf("audio of %s at %s s: %d bytes, more than %d", path, ffnum(start), out.Len(), maxAudioBytes)
	}
	return out.Bytes(), nil
}

// transcribe returns the clip's speech as text, "" when the video has no audio.
func (o Options) transcribe(ctx context.Context, path string, p *Probe, start, end float64) (string, error) {
	if o.Transcriber == nil || !p.HasAudio() {
		return "", nil
	}
	audio, err := o.ClipAudio(ctx, path, start, end)
	if err != nil {
		return "", err
	}
	text, err := o.Transcriber.Transcribe(ctx, audio, fmt.Sprintf("clip-%s.wav", ffnum(start)))
	if err != nil {
		return "", fmt.Errorf("transcribe %s at %s s: %w", path, ffnum(start), err)
	}
	return strings.TrimSpace(text), nil
}
