package server

import (
	"fmt"
	"path/filepath"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	_ "image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	corpus "proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/library"
	"proofglass/backend/model"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
)

// TestMain lets the test binary serve as the MuPDF worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

func testdata(t testing.TB, rel string) string { return corpus.Path(t, rel) }

// fixture is a library with one real PDF and one real image ingested (no OCR: the text layer is enough here).
type fixture struct {
	lib   *library.Library
	token string
	srv   *httptest.Server
}

var (
	fixOnce sync.Once
	fixLib  *library.Library
	fixErr  error
)

func newFixture(t testing.TB, chat model.Chat) *fixture {
	t.Helper()
	pdfPath := testdata(t, "pdf/real/blood_loss_report.pdf")
	imgPath := testdata(t, "images/charts/bkf_plot.png")
	fixOnce.Do(func() {
		dir, err := os.MkdirTemp("", "proofglass-server-test-")
		if err != nil {
			fixErr = err
			return
		}
		lib, err := library.Open(context.Background(), dir)
		if err != nil {
			fixErr = err
			return
		}
		in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 2})
		defer in.Close()
		res, err := in.Add(context.Background(), "docs", []string{pdfPath, imgPath}, nil)
		if err != nil {
			fixErr = err
			return
		}
		for _, r := range res {
			if r.Error != "" {
				fixErr = errors.New(r.Error)
				return
			}
		}
		fixLib = lib
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	s, err := New(fixLib, Options{Token: "test-token-4f9a2c71", Addr: "127.0.0.1:0", Chat: chat})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return &fixture{lib: fixLib, token: "test-token-4f9a2c71", srv: srv}
}

func (f *fixture) do(t *testing.T, method, path, token string, body any) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.srv.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decode[T any](t *testing.T, r *http.Response) T {
	t.Helper()
	var v T
	if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", r.Request.URL.Path, err)
	}
	return v
}

func TestAuth(t *testing.T) {
	f := newFixture(t, nil)
	cases := map[string]struct {
		method, path, token string
		want                int
	}{
		"health needs no token":   {"GET", "/healthz", "", 200},
		"search without a token":  {"GET", "/search?queries=blood", "", 401},
		"search with a bad token": {"GET", "/search?queries=blood", "nope", 401},
		"search with the token":   {"GET", "/search?queries=blood", "test-token-4f9a2c71", 200},
		"blob without a token":    {"GET", "/v1/blobs/" + strings.Repeat("a", 64), "", 401},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := f.do(t, c.method, c.path, c.token, nil).StatusCode; got != c.want {
				t.Errorf("status %d, want %d", got, c.want)
			}
		})
	}
}

func TestRefusesOpenNetworkWithoutToken(t *testing.T) {
	if _, err := New(&library.Library{}, Options{Addr: "0.0.0.0:8001"}); err == nil {
		t.Fatal("a non-loopback address without a token was accepted")
	}
	for _, a := range []string{"127.0.0.1:8001", "[::1]:8001", "localhost:8001"} {
		if !IsLoopback(a) {
			t.Errorf("%s is loopback", a)
		}
	}
	if IsLoopback("192.168.1.4:8001") || IsLoopback(":8001") {
		t.Error("an all-interfaces or LAN address counted as loopback")
	}
}

func TestSearchNewerShape(t *testing.T) {
	f := newFixture(t, nil)
	resp := f.do(t, "POST", "/search", f.token, map[string]any{"queries": []string{"blood loss", "zzzz qqqq"}, "top_k": 2})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	body := decode[struct {
		Results []queryResult `json:"results"`
	}](t, resp)
	if len(body.Results) != 2 {
		t.Fatalf("one result list per query: %d", len(body.Results))
	}
	r := body.Results[0]
	if len(r.Data) == 0 || len(r.Data) > 2 || len(r.Score) != len(r.Data) || len(r.Indice) != len(r.Data) {
		t.Fatalf("result shape: %+v", r)
	}
	for i, d := range r.Data {
		if d.Type != "image" || d.Doc != "blood_loss_report.pdf" || d.UnitID != r.Indice[i] {
			t.Errorf("item %d: %+v", i, d)
		}
		if want := fmt.Sprintf("blood_loss_report_%d", d.Page); d.Name != want || filepath.Base(d.FilePath) != want+".jpg" {
			t.Errorf("item %d: name %q, file %q; want VRAG's %q", i, d.Name, filepath.Base(d.FilePath), want)
		}
		// VRAG opens image_file/file_path as a local file: it must be a decodable page image at 200 DPI.
		fh, err := os.Open(d.FilePath)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(fh)
		fh.Close()
		u, _ := f.lib.KB.Content.Unit(context.Background(), d.UnitID)
		wantW := int(u.Width * 200 / 72)
		if err != nil || format != "jpeg" || cfg.Width < wantW-2 || cfg.Width > wantW+2 {
			t.Errorf("page file %s: %v %s %dx%d, want width %d", d.FilePath, err, format, cfg.Width, cfg.Height, wantW)
		}
		if i > 0 && r.Score[i] > r.Score[i-1] {
			t.Errorf("scores not descending: %v", r.Score)
		}
	}
	if len(body.Results[1].Data) != 2 || body.Results[1].Data[0].Found {
		t.Errorf("a query matching nothing is completed in fill order: %+v", body.Results[1])
	}
}

func TestSearchLegacyShapes(t *testing.T) {
	f := newFixture(t, nil)
	check := func(t *testing.T, resp *http.Response, maxLen int) {
		t.Helper()
		lists := decode[[][]legacyItem](t, resp)
		if len(lists) != 1 || len(lists[0]) == 0 || len(lists[0]) > maxLen {
			t.Fatalf("legacy shape: %+v", lists)
		}
		for i, it := range lists[0] {
			if it.Idx != i {
				t.Errorf("idx %d at %d", it.Idx, i)
			}
			if _, err := os.Stat(it.ImageFile); err != nil {
				t.Errorf("image_file %s: %v", it.ImageFile, err)
			}
		}
	}
	t.Run("GET like VRAG HEAD", func(t *testing.T) { check(t, f.do(t, "GET", "/search?queries=blood", f.token, nil), 10) })
	t.Run("POST vrag_ret", func(t *testing.T) {
		check(t, f.do(t, "POST", "/search", f.token, map[string]any{"queries": []string{"blood"}, "top_k": 1, "vrag_ret": true}), 1)
	})
	t.Run("bad requests", func(t *testing.T) {
		if c := f.do(t, "POST", "/search", f.token, map[string]any{"top_k": 2}).StatusCode; c != 400 {
			t.Errorf("no queries: %d", c)
		}
		if c := f.do(t, "POST", "/search", f.token, map[string]any{"queries": []string{"x"}, "collection": "nope"}).StatusCode; c != 404 {
			t.Errorf("unknown collection: %d", c)
		}
	})
}

func TestUnitImageAndBlobs(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	docs, _ := f.lib.KB.Docs.Documents(ctx, 0)
	var pdfDoc int64
	for _, d := range docs {
		if d.Kind == "pdf" {
			pdfDoc = d.ID
		}
	}
	units, _ := f.lib.KB.Content.Units(ctx, pdfDoc)
	u := units[0]
	resp := f.do(t, "GET", "/v1/units/"+itoa(u.ID)+"/image?region=100,200,500,400", f.token, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("region render: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	img, _, err := image.DecodeConfig(resp.Body)
	if err != nil || img.Width != 400 || img.Height != 200 {
		t.Errorf("region 400x200 raw px rendered as %dx%d (%v)", img.Width, img.Height, err)
	}
	resp = f.do(t, "GET", "/v1/units/"+itoa(u.ID)+"/image?max_pixels=10000", f.token, nil)
	img, _, err = image.DecodeConfig(resp.Body)
	if err != nil || img.Width*img.Height > 10000 || img.Width*img.Height < 5000 {
		t.Errorf("max_pixels 10000 gave %dx%d (%v)", img.Width, img.Height, err)
	}
	if c := f.do(t, "GET", "/v1/units/999999/image", f.token, nil).StatusCode; c != 404 {
		t.Errorf("missing unit: %d", c)
	}
	if c := f.do(t, "GET", "/v1/units/1/image?region=5,5,1,1", f.token, nil).StatusCode; c != 400 {
		t.Errorf("inverted region: %d", c)
	}

	want, _ := f.lib.KB.Blobs.Get(u.ThumbBlob)
	resp = f.do(t, "GET", "/v1/blobs/"+u.ThumbBlob, f.token, nil)
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.Equal(got, want) || len(want) == 0 {
		t.Errorf("blob: %d, %d bytes, want %d", resp.StatusCode, len(got), len(want))
	}
	for _, bad := range []string{"..%2F..%2Fetc%2Fpasswd", "ABC", strings.Repeat("0", 64)} {
		if c := f.do(t, "GET", "/v1/blobs/"+bad, f.token, nil).StatusCode; c != 400 && c != 404 {
			t.Errorf("blob %q: status %d", bad, c)
		}
	}
}

func TestAskStreamsEventsAndStoresTheRun(t *testing.T) {
	f := newFixture(t, modeltest.Always("<think>The page says it.</think><answer>About 500 ml</answer>"))
	resp := f.do(t, "POST", "/v1/ask", f.token, map[string]any{"question": "How much blood was lost?", "mode": "vanilla", "model": "scripted"})
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("ask: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var kinds []string
	var runID string
	var answer string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var event string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var ev struct {
				Kind   string `json:"kind"`
				RunID  string `json:"run_id"`
				Answer *struct {
					Text string `json:"text"`
				} `json:"answer"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if ev.Kind != event {
				t.Errorf("event: %s but data kind %s", event, ev.Kind)
			}
			kinds = append(kinds, ev.Kind)
			runID = ev.RunID
			if ev.Answer != nil {
				answer = ev.Answer.Text
			}
		}
	}
	if len(kinds) < 3 || kinds[0] != "run_started" || kinds[len(kinds)-1] != "done" {
		t.Fatalf("event kinds %v", kinds)
	}
	if !strings.Contains(answer, "500 ml") {
		t.Errorf("answer %q", answer)
	}
	stored := decode[struct {
		Events []json.RawMessage `json:"events"`
	}](t, f.do(t, "GET", "/v1/runs/"+runID+"/events", f.token, nil))
	if len(stored.Events) != len(kinds) {
		t.Errorf("stored %d events, streamed %d", len(stored.Events), len(kinds))
	}
	if c := f.do(t, "POST", "/v1/ask", f.token, map[string]any{"question": "  "}).StatusCode; c != 400 {
		t.Errorf("empty question: %d", c)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
