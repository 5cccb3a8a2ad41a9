package media

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"proofglass/backend/fixture"
	"proofglass/backend/ocr"
)

func needFFmpeg(t *testing.T) {
	t.Helper()
	if err := (Tools{}).Check(); err != nil {
		t.Skip(err)
	}
}

var errStop = errors.New("stop")

func TestIntervalKeepsWholeSeconds(t *testing.T) {
	cases := map[string]struct {
		o    Options
		want float64
	}{
		"defaults: 60 s, 1 fps, 32 max": {Options{}, 2},
		"short clips":                   {Options{ClipSeconds: 20}, 1},
		"2 fps, 10 s, 32 max":           {Options{ClipSeconds: 10, FPS: 2}, 0.5},
		"2 fps, 60 s, 32 max":           {Options{FPS: 2}, 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.o.Interval(); got != tc.want {
				t.Errorf("Interval() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestKeyframeTimestampsAndOCR: the mwe movie prints its own time; the keyframe at t = 12 s must read 00:12.
func TestKeyframeTimestampsAndOCR(t *testing.T) {
	needFFmpeg(t)
	fixture.Command(t, "tesseract")
	path := fixture.Path(t, "video/mwe-example-movie.mp4")
	o := Options{ClipSeconds: 20, OCR: ocr.New(ocr.Options{Languages: []string{"eng"}})}
	var clips []Clip
	p, err := Extract(context.Background(), path, o, func(c Clip) error {
		clips = append(clips, c)
		return errStop // one clip is enough
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("extract: %v", err)
	}
	if math.Abs(p.Duration-61) > 0.5 || p.Video().Width != 1280 {
		t.Errorf("probe: %.1f s, %dx%d", p.Duration, p.Video().Width, p.Video().Height)
	}
	c := clips[0]
	if c.Start != 0 || c.End != 20 || len(c.Frames) != 20 {
		t.Fatalf("clip 1: %.0f–%.0f s with %d frames, want 0–20 s with 20", c.Start, c.End, len(c.Frames))
	}
	for i, f := range c.Frames {
		if f.Time != float64(i) {
			t.Errorf("frame %d at %v s, want exactly %d s", i, f.Time, i)
		}
	}
	f12 := c.Frames[12]
	if !strings.Contains(f12.OCR.Text, "00:12") {
		t.Errorf("keyframe at 12 s reads %q, want 00:12", f12.OCR.Text)
	}
	if !strings.Contains(c.Text, "[00:12]") || !strings.Contains(c.Text, "Example Movie") {
		t.Errorf("clip text %q", c.Text)
	}
}

func TestRealVideos(t *testing.T) {
	needFFmpeg(t)
	cases := map[string]int{ // minimum kept keyframes at the default 2 s interval
		"video/mwe-example-movie.mp4":                 30,
		"video/forensics-movie-hello.mp4":             3,
		"video/forensics-movie-hello.avi":             3,
		"video/forensics-movie-hello.mpeg":            3,
		"video/forensics-movie-hello.ogg":             3,
		"video/Shepard_Calais_1906_FrenchGP.160p.ogv": 5,
		"video/gnome-display-dual-monitors.webm":      5,
	}
	for rel, minFrames := range cases {
		t.Run(rel, func(t *testing.T) {
			var clips []Clip
			p, err := Extract(context.Background(), fixture.Path(t, rel), Options{}, func(c Clip) error {
				clips = append(clips, c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := int(math.Ceil(p.Duration / 60)); len(clips) > want || len(clips) == 0 {
				t.Errorf("%d clips for %.1f s", len(clips), p.Duration)
			}
			frames := 0
			for _, c := range clips {
				for _, f := range c.Frames {
					if f.Time < c.Start || f.Time >= c.End || len(f.JPEG) == 0 || f.Width > 1280 {
						t.Errorf("frame at %.2f s outside clip %.0f–%.0f or empty", f.Time, c.Start, c.End)
					}
				}
				frames += len(c.Frames)
			}
			if frames < minFrames {
				t.Errorf("%d keyframes, want at least %d", frames, minFrames)
			}
		})
	}
}

// TestStaticVideoKeepsOneFrame: a still picture for 10 s is one keyframe, the rest near-duplicates.
func TestStaticVideoKeepsOneFrame(t *testing.T) {
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "still.mp4")
	if out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc=size=320x240:rate=10:duration=1", "-vf", "tpad=stop_mode=clone:stop_duration=9", "-c:v", "mpeg4",
		"-q:v", "2", path).CombinedOutput(); err != nil {
		t.Fatalf("make video: %v %s", err, out)
	}
	var c Clip
	_, err := Extract(context.Background(), path, Options{ClipSeconds: 10}, func(cl Clip) error { c = cl; return nil })
	if err != nil {
		t.Fatal(err)
	}
	// testsrc moves during its first second, so frame 0 and at most one more differ; the clone tail is static.
	if len(c.Frames) > 2 || c.Skipped < 8 {
		t.Errorf("kept %d, skipped %d; want at most 2 kept and the still tail skipped", len(c.Frames), c.Skipped)
	}
}

func TestBadVideos(t *testing.T) {
	needFFmpeg(t)
	cases := map[string]error{
		"bad/video/generated/zero-bytes.mp4":       ErrUnreadable,
		"bad/video/generated/truncated-half.mp4":   ErrUnreadable,
		"bad/video/mp4ff/2xSencNoMdat.mp4":         ErrUnreadable,
		"bad/video/mp4ff/init_truncated.mp4":       ErrNoVideo,
		"bad/video/mp4ff/iamf.mp4":                 ErrNoVideo,
		"bad/video/mp4ff/golden_init_video.mp4":    ErrNoFrames,
		"bad/video/mp4ff/av1_init.mp4":             ErrNoFrames,
		"bad/video/mp4ff/hvc1_init.mp4":            ErrNoFrames,
		"bad/video/mp4ff/vvc_400kbps_2s.mp4":       ErrUnsupported,
		"bad/video/mp4ff/cbcs.mp4":                 ErrEncrypted,
		"bad/video/mp4ff/prog_8s_enc_dashinit.mp4": ErrEncrypted,
	}
	for rel, want := range cases {
		t.Run(rel, func(t *testing.T) {
			path := fixture.Path(t, rel)
			called := false
			_, err := Extract(context.Background(), path, Options{}, func(Clip) error { called = true; return nil })
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if called {
				t.Error("a clip was delivered for a bad video")
			}
		})
	}
}

func TestCancel(t *testing.T) {
	needFFmpeg(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Extract(ctx, fixture.Path(t, "video/mwe-example-movie.mp4"), Options{}, func(Clip) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestStamp(t *testing.T) {
	for in, want := range map[float64]string{0: "00:00", 12: "00:12", 61.5: "01:01", 3725: "1:02:05", 11.9999999: "00:12"} {
		if got := Stamp(in); got != want {
			t.Errorf("Stamp(%v) = %q, want %q", in, got, want)
		}
	}
}

// recordingTranscriber is a scripted speech model: it keeps the audio it was sent and answers with its length.
type recordingTranscriber struct{ got [][]byte }

func (r *recordingTranscriber) Transcribe(_ context.Context, audio []byte, name string) (string, error) {
	r.got = append(r.got, audio)
	return fmt.Sprintf(" heard %d bytes of %s ", len(audio), name), nil
}

func TestClipTranscripts(t *testing.T) {
	needFFmpeg(t)
	ctx := context.Background()
	cases := map[string]struct {
		file       string
		clipS      float64
		wantClips  int
		wantSpeech bool
	}{
		"video with sound: one transcript per clip": {"video/forensics-movie-hello.mp4", 4, 3, true},
		"silent video: no audio is sent":            {"video/gnome-display-dual-monitors.webm", 60, 1, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tr := &recordingTranscriber{}
			var clips []Clip
			_, err := Extract(ctx, fixture.Path(t, c.file), Options{ClipSeconds: c.clipS, Transcriber: tr}, func(cl Clip) error {
				clips = append(clips, cl)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(clips) != c.wantClips {
				t.Fatalf("%d clips, want %d", len(clips), c.wantClips)
			}
			if !c.wantSpeech {
				if len(tr.got) != 0 || clips[0].Transcript != "" {
					t.Fatalf("silent video sent %d audio files, transcript %q", len(tr.got), clips[0].Transcript)
				}
				return
			}
			if len(tr.got) != len(clips) {
				t.Fatalf("%d transcriptions for %d clips", len(tr.got), len(clips))
			}
			for i, a := range tr.got {
				// A 16 kHz mono 16-bit WAV: RIFF header, fmt chunk, and 32,000 bytes per second of the clip.
				if len(a) < 44 || string(a[:4]) != "RIFF" || string(a[8:12]) != "WAVE" {
					t.Fatalf("clip %d audio is not WAV", i)
				}
				channels := int(a[22]) | int(a[23])<<8
				rate := int(a[24]) | int(a[25])<<8 | int(a[26])<<16 | int(a[27])<<24
				secs := float64(len(a)-44) / 32000
				want := min(c.clipS, 8.32-float64(i)*c.clipS)
				if channels != 1 || rate != 16000 || secs < want-0.2 || secs > want+0.2 {
					t.Errorf("clip %d: %d channels, %d Hz, %.2f s of audio, want mono 16 kHz %.2f s", i, channels, rate, secs, want)
				}
				if !strings.HasPrefix(clips[i].Transcript, "heard ") {
					t.Errorf("clip %d transcript %q (untrimmed or missing)", i, clips[i].Transcript)
				}
			}
		})
	}
}

type failingTranscriber struct{}

func (failingTranscriber) Transcribe(context.Context, []byte, string) (string, error) {
	return "", errors.New("server said no")
}

func TestTranscriptFailureNamesTheFile(t *testing.T) {
	needFFmpeg(t)
	_, err := Extract(context.Background(), fixture.Path(t, "video/forensics-movie-hello.mp4"), Options{Transcriber: failingTranscriber{}},
		func(Clip) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "forensics-movie-hello.mp4") || !strings.Contains(err.Error(), "server said no") {
		t.Fatalf("err = %v", err)
	}
}

// TestRecorded: the date a video was made, from its container's creation_time (real files; only the webm says one),
// and the forms and zero times muxers write.
func TestRecorded(t *testing.T) {
	needFFmpeg(t)
	for rel, want := range map[string]string{
		"video/gnome-display-dual-monitors.webm": "2011-10-12", // creation_time 2011-10-12T22:38:25.000000Z
		"video/mwe-example-movie.mp4":            "",
		"video/forensics-movie-hello.avi":        "",
	} {
		p, err := Tools{}.ProbeFile(context.Background(), fixture.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		if p.Recorded != want {
			t.Errorf("%s: recorded %q, want %q", rel, p.Recorded, want)
		}
	}
	for tag, want := range map[string]string{
		"2023-05-01T22:38:25.000000Z": "2023-05-01",
		"2023-05-01T23:30:00+02:00":   "2023-05-01",
		"2023-05-01 10:00:00":         "2023-05-01",
		"1970-01-01T00:00:00.000000Z": "", // a muxer that knew no time
		"1904-01-01T00:00:00Z":        "", // QuickTime's zero
		"yesterday":                   "",
	} {
		if got := recordedDate(map[string]string{"CREATION_TIME": tag}); got != want {
			t.Errorf("creation_time %q: %q, want %q", tag, got, want)
		}
	}
}
