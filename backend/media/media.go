// Package media probes videos with ffprobe and cuts them into clips with exactly timed, OCRed keyframes via ffmpeg.
package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Errors a video can fail with; returned errors wrap one of these and name the file.
var (
	ErrNotInstalled = errors.New("ffmpeg/ffprobe not installed (" + installHint + ")")
	ErrUnreadable   = errors.New("unreadable video")
	ErrNoVideo      = errors.New("no video stream")
	ErrUnsupported  = errors.New("unsupported video codec")
	ErrEncrypted    = errors.New("encrypted video")
	ErrNoFrames     = errors.New("no decodable frames")
)

// Stream is one stream of a container.
type Stream struct {
	Index     int     `json:"index"`
	Type      string  `json:"type"`  // video, audio, subtitle, data
	Codec     string  `json:"codec"` // empty when ffmpeg has no decoder for it
	Tag       string  `json:"tag,omitempty"`
	Width     int     `json:"width,omitempty"`
	Height    int     `json:"height,omitempty"`
	FrameRate float64 `json:"frame_rate,omitempty"`
	Encrypted bool    `json:"encrypted,omitempty"`
}

// Probe describes a media file.
type Probe struct {
	Format   string   `json:"format"`
	Duration float64  `json:"duration"` // seconds
	Size     int64    `json:"size"`
	Streams  []Stream `json:"streams"`
	// Recorded is the date the container says the video was made (its creation_time tag), YYYY-MM-DD, or "".
	Recorded string `json:"recorded,omitempty"`
}

// Video returns the first video stream, or nil.
func (p *Probe) Video() *Stream {
	for i := range p.Streams {
		if p.Streams[i].Type == "video" {
			return &p.Streams[i]
		}
	}
	return nil
}

// HasAudio reports whether there is an audio stream (for an optional transcript).
func (p *Probe) HasAudio() bool {
	for _, s := range p.Streams {
		if s.Type == "audio" {
			return true
		}
	}
	return false
}

// Tools locates ffprobe and ffmpeg.
type Tools struct {
	FFprobe string // default "ffprobe"
	FFmpeg  string // default "ffmpeg"
}

func (t Tools) withDefaults() Tools {
	if t.FFprobe == "" {
		t.FFprobe = "ffprobe"
	}
	if t.FFmpeg == "" {
		t.FFmpeg = "ffmpeg"
	}
	return t
}

// Check reports whether both tools can be found.
func (t Tools) Check() error {
	t = t.withDefaults()
	for _, b := range []string{t.FFprobe, t.FFmpeg} {
		if _, err := exec.LookPath(b); err != nil {
			return fmt.Errorf("media: %w: %v", ErrNotInstalled, err)
		}
	}
	return nil
}

// ProbeFile runs ffprobe on path.
func (t Tools) ProbeFile(ctx context.Context, path string) (*Probe, error) {
	t = t.withDefaults()
	if err := t.Check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.FFprobe, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", "--", path)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("video %s: ffprobe: %w", path, ctx.Err())
		}
		return nil, fmt.Errorf("video %s: %w: ffprobe: %s", path, ErrUnreadable, firstLine(stderr.String(), err))
	}
	var raw struct {
		Format struct {
			Name     string            `json:"format_name"`
			Duration string            `json:"duration"`
			Size     string            `json:"size"`
			Tags     map[string]string `json:"tags"`
		} `json:"format"`
		Streams []struct {
			Index     int    `json:"index"`
			Type      string `json:"codec_type"`
			Codec     string `json:"codec_name"`
			Tag       string `json:"codec_tag_string"`
			Width     int    `json:"width"`
			Height    int    `json:"height"`
			FrameRate string `json:"avg_frame_rate"`
			SideData  []struct {
				Type string `json:"side_data_type"`
			} `json:"side_data_list"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		return nil, fmt.Errorf("video %s: %w: ffprobe output: %v", path, ErrUnreadable, err)
	}
	p := &Probe{Format: raw.Format.Name, Recorded: recordedDate(raw.Format.Tags)}
	p.Duration, _ = strconv.ParseFloat(raw.Format.Duration, 64)
	p.Size, _ = strconv.ParseInt(raw.Format.Size, 10, 64)
	for _, s := range raw.Streams {
		st := Stream{Index: s.Index, Type: s.Type, Codec: s.Codec, Tag: s.Tag, Width: s.Width, Height: s.Height,
			FrameRate: ratio(s.FrameRate)}
		for _, sd := range s.SideData {
			if strings.Contains(strings.ToLower(sd.Type), "encryption") {
				st.Encrypted = true
			}
		}
		p.Streams = append(p.Streams, st)
	}
	return p, nil
}

// recordedDate reads a container's creation_time tag (RFC 3339, as ffprobe prints it; tag names differ in case by
// container) as YYYY-MM-DD. The zero times muxers write when they know none are not a date.
func recordedDate(tags map[string]string) string {
	for k, v := range tags {
		if !strings.EqualFold(k, "creation_time") {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
		if err != nil {
			t, err = time.Parse("2006-01-02 15:04:05", strings.TrimSpace(v))
		}
		if err != nil || t.Year() < 1971 || t.Year() > 2200 {
			return ""
		}
		return t.Format("2006-01-02") // the date where it was made, when the tag says its offset
	}
	return ""
}

// Validate says why a probed file cannot be indexed as a video, or nil.
func (p *Probe) Validate(path string) error {
	v := p.Video()
	if v == nil {
		kinds := make([]string, 0, len(p.Streams))
		for _, s := range p.Streams {
			kinds = append(kinds, strings.TrimSpace(s.Type+" "+s.Codec+s.tagIfNoCodec()))
		}
		if len(kinds) == 0 {
			return fmt.Errorf("video %s: %w (the container holds no streams)", path, ErrNoVideo)
		}
		return fmt.Errorf("video %s: %w (streams: %s)", path, ErrNoVideo, strings.Join(kinds, ", "))
	}
	if v.Codec == "" {
		return fmt.Errorf("video %s: %w %q: this ffmpeg has no decoder for it", path, ErrUnsupported, v.Tag)
	}
	for _, s := range p.Streams {
		if s.Encrypted {
			return fmt.Errorf("video %s: %w (%s stream %d carries DRM encryption data)", path, ErrEncrypted, s.Type, s.Index)
		}
	}
	if p.Duration <= 0 {
		return fmt.Errorf("video %s: %w: no duration (no samples)", path, ErrNoFrames)
	}
	return nil
}

func (s Stream) tagIfNoCodec() string {
	if s.Codec == "" && s.Tag != "" {
		return "(" + s.Tag + ", no decoder)"
	}
	return ""
}

func ratio(s string) float64 {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	n, _ := strconv.ParseFloat(a, 64)
	d, _ := strconv.ParseFloat(b, 64)
	if d == 0 {
		return 0
	}
	return n / d
}

func firstLine(stderr string, err error) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return err.Error()
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}
