package media

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"proofglass/backend/ocr"
)

// Options shapes Extract.
type Options struct {
	Tools
	// ClipSeconds is the length of a clip (the retrieval unit); 0 means 60, as in the reference engine.
	ClipSeconds float64
	// FPS is the keyframe rate; 0 means 1. MaxFramesPerClip (0 means 32) caps the frames of one clip: when the
	// rate would give more, the interval grows to the next whole multiple of 1/FPS, so keyframes stay on exact
	// whole-interval timestamps (60 s at 1 fps and 32 max: every 2 s).
	FPS              float64
	MaxFramesPerClip int
	// MaxWidth scales larger frames down (0 means 1280).
	MaxWidth int
	// DupChange is the share of pixels (of a 160-pixel-wide grey copy) that must change for a frame to be kept
	// after the last kept one; 0 means 0.0004. Static screens and slides then cost one frame, not one per second.
	// Measured on the test videos: a clock's two changed digits on a 1280x720 frame change >= 0.0007; noise and
	// cursor moves on a still screencast <= 0.0004.
	DupChange float64
	// Timeout bounds ffmpeg for one clip; 0 means 5 minutes.
	Timeout time.Duration
	// OCR, when set, reads the text of every kept keyframe.
	OCR *ocr.Engine
	// Transcriber, when set, turns each clip's speech into its Transcript.
	Transcriber Transcriber
}

func (o Options) withDefaults() Options {
	o.Tools = o.Tools.withDefaults()
	if o.ClipSeconds <= 0 {
		o.ClipSeconds = 60
	}
	if o.FPS <= 0 {
		o.FPS = 1
	}
	if o.MaxFramesPerClip <= 0 {
		o.MaxFramesPerClip = 32
	}
	if o.MaxWidth <= 0 {
		o.MaxWidth = 1280
	}
	if o.DupChange <= 0 {
		o.DupChange = 0.0004
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	return o
}

// Interval is the time between keyframes that o gives.
func (o Options) Interval() float64 {
	o = o.withDefaults()
	step := 1 / o.FPS
	n := math.Ceil(o.ClipSeconds * o.FPS / float64(o.MaxFramesPerClip))
	return step * math.Max(1, n)
}

// Frame is a kept keyframe.
type Frame struct {
	Time   float64     `json:"time"` // seconds from the start of the video, exact to the frame's timestamp
	JPEG   []byte      `json:"-"`
	Width  int         `json:"width"`
	Height int         `json:"height"`
	OCR    *ocr.Result `json:"ocr,omitempty"`
}

// Clip is one retrieval unit of a video.
type Clip struct {
	Index   int     `json:"index"` // 0-based
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Frames  []Frame `json:"frames"`
	Skipped int     `json:"skipped"` // near-duplicate keyframes not kept
	// Text joins the OCR text of the kept frames, each preceded by its timestamp as [mm:ss].
	Text string `json:"text"`
	// Transcript is the clip's speech as text (with a Transcriber and an audio stream).
	Transcript string `json:"transcript,omitempty"`
}

// Extract probes path, then cuts it into clips and calls fn with each clip in order, so only one clip's frames
// are in memory at a time. It returns the probe.
func Extract(ctx context.Context, path string, o Options, fn func(Clip) error) (*Probe, error) {
	o = o.withDefaults()
	p, err := o.ProbeFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(path); err != nil {
		return p, err
	}
	tmp, err := os.MkdirTemp("", "proofglass-frames-")
	if err != nil {
		return p, fmt.Errorf("video %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	total := 0
	for i := 0; float64(i)*o.ClipSeconds < p.Duration; i++ {
		start := float64(i) * o.ClipSeconds
		end := math.Min(p.Duration, start+o.ClipSeconds)
		clip, err := o.clip(ctx, path, tmp, i, start, end)
		if err != nil {
			return p, err
		}
		total += len(clip.Frames) + clip.Skipped
		if len(clip.Frames) == 0 {
			continue // a tail shorter than one frame interval
		}
		if clip.Transcript, err = o.transcribe(ctx, path, p, start, end); err != nil {
			return p, err
		}
		if err := fn(*clip); err != nil {
			return p, err
		}
	}
	if total == 0 {
		return p, fmt.Errorf("video %s: %w: ffmpeg decoded no frame in %.1f s", path, ErrNoFrames, p.Duration)
	}
	return p, nil
}

var showinfoRe = regexp.MustCompile(`\bn:\s*(\d+)\s+pts:\s*-?\d+\s+pts_time:(-?[0-9.]+)`)

func (o Options) clip(ctx context.Context, path, tmp string, index int, start, end float64) (*Clip, error) {
	dir := filepath.Join(tmp, strconv.Itoa(index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("video %s: %w", path, err)
	}
	defer os.RemoveAll(dir)
	step := o.Interval()
	s, e, st := ffnum(start), ffnum(end), ffnum(step)
	// Seek to the clip on input (fast), keep the original timestamps (-copyts), cut exactly with trim, and select
	// the first frame of every interval: on a constant-rate video that is the frame at the exact timestamp.
	filter := fmt.Sprintf("trim=start=%s:end=%s,select='eq(selected_n\\,0)+gt(floor(t/%s)\\,floor(prev_t/%s))',"+
		"scale='min(%d\\,iw)':-2,showinfo", s, e, st, st, o.MaxWidth)
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, o.FFmpeg, "-hide_banner", "-nostdin", "-loglevel", "info", "-xerror",
		"-ss", s, "-copyts", "-i", path, "-map", "0:v:0", "-an", "-sn", "-dn",
		"-vf", filter, "-fps_mode", "vfr", "-frames:v", strconv.Itoa(o.MaxFramesPerClip+1), "-q:v", "3",
		filepath.Join(dir, "f_%05d.jpg"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("video %s: %w", path, ctx.Err())
	}
	if cctx.Err() != nil {
		return nil, fmt.Errorf("video %s: ffmpeg killed after the %s time limit on clip %d", path, o.Timeout, index+1)
	}
	log := stderr.String()
	if runErr != nil {
		return nil, fmt.Errorf("video %s: %w: ffmpeg on clip %d: %s", path, ErrNoFrames, index+1, lastErrorLine(log, runErr))
	}
	times := map[int]float64{}
	for _, m := range showinfoRe.FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[1])
		t, _ := strconv.ParseFloat(m[2], 64)
		times[n] = t
	}
	files, _ := filepath.Glob(filepath.Join(dir, "f_*.jpg"))
	sort.Strings(files)
	c := &Clip{Index: index, Start: start, End: end}
	var last []uint8
	var texts []string
	for k, f := range files {
		t, ok := times[k]
		if !ok || t >= end {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("video %s: %w", path, err)
		}
		img, err := jpeg.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("video %s: frame at %.2f s: %w", path, t, err)
		}
		sig := signature(img)
		if last != nil && changed(last, sig) < o.DupChange {
			c.Skipped++
			continue
		}
		last = sig
		fr := Frame{Time: t, JPEG: b, Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}
		if o.OCR != nil {
			res, err := o.OCR.Recognize(ctx, fmt.Sprintf("%s at %s", path, Stamp(t)), b)
			if err != nil {
				return nil, err
			}
			fr.OCR = res
			if txt := strings.TrimSpace(res.Text); txt != "" {
				texts = append(texts, "["+Stamp(t)+"] "+txt)
			}
		}
		c.Frames = append(c.Frames, fr)
	}
	c.Text = strings.Join(texts, "\n")
	return c, nil
}

// Stamp formats seconds as mm:ss (h:mm:ss from one hour).
func Stamp(t float64) string {
	s := int(math.Floor(t + 1e-6))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func ffnum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func lastErrorLine(log string, err error) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.Contains(l, "showinfo") && !strings.HasPrefix(l, "frame=") {
			return l
		}
	}
	return err.Error()
}

const sigW = 160

// signature is a small grey copy of a frame for near-duplicate detection.
func signature(img image.Image) []uint8 {
	b := img.Bounds()
	h := max(1, sigW*b.Dy()/max(1, b.Dx()))
	sig := make([]uint8, sigW*h)
	for y := 0; y < h; y++ {
		sy := b.Min.Y + y*b.Dy()/h
		for x := 0; x < sigW; x++ {
			sx := b.Min.X + x*b.Dx()/sigW
			r, g, bl, _ := img.At(sx, sy).RGBA()
			sig[y*sigW+x] = uint8((299*r + 587*g + 114*bl) / 1000 >> 8)
		}
	}
	return sig
}

// changed is the share of signature pixels whose grey level moved by more than 32 (of 255): compression noise
// stays below that, a changed character does not.
func changed(a, b []uint8) float64 {
	if len(a) != len(b) {
		return 1
	}
	n := 0
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d > 32 || d < -32 {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
