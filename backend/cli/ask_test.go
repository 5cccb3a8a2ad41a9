package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/fixture"
	"proofglass/backend/kb"
	"proofglass/backend/kb/kbtest"
	"proofglass/backend/kbagent"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/vision"
)

func askTestdata(t testing.TB, rel string) string { return fixture.Path(t, rel) }

// askKB fills the knowledge base of data dir with a real PDF (storePDF, collection "papers") and returns its page
// texts by 1-based page and their unit ids.
func askKB(t *testing.T, data, rel string) (texts []string, units []int64) {
	t.Helper()
	k := openData(t, data)
	defer k.Close()
	c := pdf.NewClient(pdf.Options{})
	defer c.Close()
	col, err := k.Docs.EnsureCollection(context.Background(), "papers")
	if err != nil {
		t.Fatal(err)
	}
	return storePDF(t, k, c, col.ID, askTestdata(t, rel))
}

// storePDF stores a real PDF as ingest does (the original in the blob store, one unit per page with MuPDF's text
// layer) and returns its page texts by 1-based page and their unit ids.
func storePDF(t *testing.T, k *kb.KB, c *pdf.Client, collectionID int64, path string) (texts []string, units []int64) {
	t.Helper()
	ctx := context.Background()
	blob, size, err := k.Blobs.PutFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := c.Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	raw, _ := os.ReadFile(path)
	sum := sha256.Sum256(raw)
	d, _, err := k.Docs.AddDocument(ctx, kb.Document{CollectionID: collectionID, SHA256: hex.EncodeToString(sum[:]), Name: filepath.Base(path),
		Kind: "pdf", SizeBytes: size, Blob: blob, Status: kb.StatusReady, Pages: doc.Pages()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range doc.Pages() {
		p, err := doc.Page(ctx, i, pdf.PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id, err := k.Content.PutUnit(ctx, kb.Unit{DocumentID: d.ID, Ordinal: i + 1, Kind: kb.UnitPage, Width: p.Width, Height: p.Height,
			Text: p.Text, TextSource: kb.TextLayer})
		if err != nil {
			t.Fatal(err)
		}
		texts, units = append(texts, p.Text), append(units, id)
	}
	return texts, units
}

// uniqueWord finds a long word that occurs on exactly one page (not the first), so a search for it has one right
// answer that the test knows independently of the ranking.
func uniqueWord(t *testing.T, texts []string) (string, int) {
	t.Helper()
	word := regexp.MustCompile(`[A-Za-z]{9,}`)
	pagesOf := map[string]map[int]bool{}
	for i, tx := range texts {
		for _, w := range word.FindAllString(tx, -1) {
			w = strings.ToLower(w)
			if pagesOf[w] == nil {
				pagesOf[w] = map[int]bool{}
			}
			pagesOf[w][i+1] = true
		}
	}
	var cands []string
	for w, ps := range pagesOf {
		if len(ps) == 1 && !ps[1] {
			cands = append(cands, w)
		}
	}
	if len(cands) == 0 {
		t.Fatal("no word unique to one page")
	}
	sort.Strings(cands)
	for p := range pagesOf[cands[0]] {
		return cands[0], p
	}
	panic("unreachable")
}

// chatImages decodes the image parts of request n to s, in order.
func chatImages(t *testing.T, s *modeltest.Server, n int) []vision.Size {
	t.Helper()
	body := s.Bodies()[n]
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request %d: %v", n, err)
	}
	var out []vision.Size
	for _, m := range req.Messages {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue // a plain string
		}
		for _, p := range parts {
			if p.Type != "image_url" {
				continue
			}
			b64, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/jpeg;base64,")
			if !ok {
				t.Fatalf("request %d: image URL %.40q is not a JPEG data URI", n, p.ImageURL.URL)
			}
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			img, err := vision.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, vision.SizeOf(img))
		}
	}
	return out
}

// cli runs the proofglass command tree in-process.
func cli(ctx context.Context, data string, args ...string) (string, error) {
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(io.Discard)
	root.SetArgs(append([]string{"--data", data}, args...))
	err := root.ExecuteContext(ctx)
	return out.String(), err
}

func openAIEnv(t *testing.T, url string) {
	t.Setenv("OPENAI_BASE_URL", url+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_PROVIDER", "")
	t.Setenv("PROOFGLASS_MODEL", "")
}

func TestAskVRAGEndToEnd(t *testing.T) {
	data := t.TempDir()
	texts, units := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	word, page := uniqueWord(t, texts)
	bbox := [4]float64{100, 120, 500, 400}
	srv := &modeltest.Server{Chunk: 9, Usage: true, Turns: []string{
		"<think>I should look for the page.</think>\n<search>" + word + "</search>",
		fmt.Sprintf("<think>The top of the page matters.</think>\n<bbox>[%g, %g, %g, %g]</bbox>", bbox[0], bbox[1], bbox[2], bbox[3]),
		"<think>Now I can read it.</think>\n<answer>It is on that page.</answer>",
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	crops := filepath.Join(data, "crops")
	ctx := context.Background()
	live, err := cli(ctx, data, "ask", "Where is "+word+" discussed?", "--mode", "vrag", "--provider", "openai",
		"--model", "qwen2.5-vl-7b", "--crops", crops)
	if err != nil {
		t.Fatalf("ask: %v\n%s", err, live)
	}
	t.Logf("live transcript:\n%s", live)

	k := openData(t, data)
	defer k.Close()
	runs, err := k.History.Runs(ctx, 0)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	run := runs[0]
	if run.Status != "done" || run.Answer != "It is on that page." || run.Mode != "vrag" || run.Model != "qwen2.5-vl-7b" {
		t.Fatalf("stored run %+v", run)
	}
	evs, err := kbagent.Events(ctx, k, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := agent.Replay(evs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Done == nil || st.Done.Status != agent.StatusAnswered || st.Done.Usage.Steps != 3 || st.Done.Usage.ToolSteps != 2 {
		t.Fatalf("done %+v", st.Done)
	}
	if len(st.Steps) != 3 || len(st.Steps[0].Results) != 1 || len(st.Steps[1].Crops) != 1 {
		t.Fatalf("steps %+v", st.Steps)
	}

	// The search found the page that holds the word, and the model was shown that page.
	res := st.Steps[0].Results[0]
	unit := kbagent.ID(units[page-1])
	if !res.Hits[0].Shown || res.Hits[0].UnitID != unit || res.Hits[0].Page != page {
		t.Fatalf("first hit %+v, want unit %s page %d", res.Hits[0], unit, page)
	}
	pageRaw := vision.Size{W: 1654, H: 2339} // A4 at 200 DPI
	sent := vision.VRAGSize(pageRaw)
	if got := chatImages(t, srv, 1); len(got) != 1 || got[0] != sent {
		t.Fatalf("second model call carried images %v, want the page at %v", got, sent)
	}

	// The crop: the box maps from the encoder frame of the page image to raw pixels with 56 px padding.
	enc, err := vision.Qwen25VL.Resize(sent)
	if err != nil {
		t.Fatal(err)
	}
	region, err := vision.MapBBox(vision.View{Region: vision.Full(pageRaw), Encoded: enc}, bbox, vision.CropPad)
	if err != nil {
		t.Fatal(err)
	}
	px := vision.PixelRect(region, pageRaw)
	cropSize := vision.VRAGSize(vision.Size{W: px.Dx(), H: px.Dy()})
	crop := st.Steps[1].Crops[0]
	if crop.UnitID != unit || crop.BBoxRaw != region.Array() || !crop.TrueZoom || crop.PageW != pageRaw.W {
		t.Fatalf("crop %+v, want region %v of unit %s", crop, region.Array(), unit)
	}
	blob, err := k.Blobs.Get(crop.Image.Image.Blob)
	if err != nil {
		t.Fatalf("crop blob: %v", err)
	}
	img, err := vision.Decode(blob)
	if err != nil {
		t.Fatal(err)
	}
	if vision.SizeOf(img) != cropSize || crop.Image.Image.Width != cropSize.W {
		t.Fatalf("crop image %v, want %v", vision.SizeOf(img), cropSize)
	}
	if got := chatImages(t, srv, 2); len(got) != 2 || got[1] != cropSize {
		t.Fatalf("third model call carried images %v, want page then crop %v", got, cropSize)
	}
	if !kbtest.RunHoldsBlob(t, k, run.ID, crop.Image.Image.Blob) {
		t.Fatal("crop blob not tied to the run")
	}

	// The citation points at the unit and page the word is on, with the crop's region.
	a := st.Answer
	if len(a.Citations) != 1 || a.Citations[0].UnitID != unit || a.Citations[0].Page != page || a.Citations[0].Region == nil ||
		*a.Citations[0].Region != crop.Region {
		t.Fatalf("citations %+v, want unit %s page %d region %v", a.Citations, unit, page, crop.Region)
	}

	// The transcript names the crop file, which holds the crop blob.
	cropFile := filepath.Join(crops, fmt.Sprintf("run-%d-crop-%03d.jpg", run.ID, eventSeq(evs, agent.KindCrop)))
	if !strings.Contains(live, "saved "+cropFile+"\n") {
		t.Fatalf("transcript does not name %s:\n%s", cropFile, live)
	}
	if b, err := os.ReadFile(cropFile); err != nil || !bytes.Equal(b, blob) {
		t.Fatalf("crop file: %v", err)
	}
	for _, want := range []string{"search: \"" + word + "\"", "answer:\n  It is on that page.\n", fmt.Sprintf("p.%d (unit %s), region", page, unit),
		"done: answered · 3 model calls, 2 tool steps"} {
		if !strings.Contains(live, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, live)
		}
	}

	// Replaying the stored run prints exactly the live transcript.
	replay, err := cli(ctx, data, "runs", "show", strconv.FormatInt(run.ID, 10), "--crops", crops)
	if err != nil {
		t.Fatal(err)
	}
	if replay != live {
		t.Fatalf("replay differs from live:\n--- live\n%s\n--- replay\n%s", live, replay)
	}

	// The same with JSON lines: a second run, live and replayed.
	liveJSON, err := cli(ctx, data, "ask", "Where is "+word+" discussed?", "--provider", "openai", "--model", "m", "--mode", "vrag", "--json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(liveJSON), "\n")
	var first, last agent.Event
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if first.Kind != agent.KindRunStarted || last.Kind != agent.KindDone || last.Done.Status != agent.StatusAnswered {
		t.Fatalf("json lines from %s to %s", first.Kind, last.Kind)
	}
	replayJSON, err := cli(ctx, data, "runs", "show", first.RunID, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if replayJSON != liveJSON {
		t.Fatalf("JSON replay differs from live")
	}
	list, err := cli(ctx, data, "runs", "list")
	if err != nil || !strings.Contains(list, "Where is "+word) || strings.Count(list, "done") != 2 {
		t.Fatalf("runs list:\n%s %v", list, err)
	}
}

func eventSeq(evs []agent.Event, k agent.Kind) int {
	for _, e := range evs {
		if e.Kind == k {
			return e.Seq
		}
	}
	return -1
}

func TestAskCancelledRunIsStored(t *testing.T) {
	data := t.TempDir()
	texts, _ := askKB(t, data, "pdf/real/blood_loss_report.pdf")
	word, _ := uniqueWord(t, texts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &modeltest.Server{Chunk: 9, Usage: true, Turns: []string{"<search>" + word + "</search>"}}
	// The second model call is where the user presses Ctrl-C: the server holds the stream open until then.
	srv.OnCall = func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n != 1 {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>hmm\"}}]}\n\n")
		w.(http.Flusher).Flush()
		cancel()
		<-r.Context().Done()
		return true
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	openAIEnv(t, hs.URL)
	out, err := cli(ctx, data, "ask", "q "+word, "--provider", "openai", "--model", "m", "--json")
	if err == nil {
		t.Fatal("a cancelled ask must fail")
	}
	k := openData(t, data)
	defer k.Close()
	runs, _ := k.History.Runs(context.Background(), 0)
	if len(runs) != 1 || runs[0].Status != "cancelled" || runs[0].FinishedAt.IsZero() {
		t.Fatalf("runs %+v", runs)
	}
	evs, err := kbagent.Events(context.Background(), k, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Replay(evs); err != nil {
		t.Fatal(err)
	}
	n := len(evs)
	if n < 3 || evs[n-2].Kind != agent.KindError || evs[n-2].Error.Code != "cancelled" || evs[n-1].Done.Status != agent.StatusCancelled {
		t.Fatalf("last events %+v %+v", evs[n-2], evs[n-1])
	}
	// Everything printed live was stored.
	sc := bufio.NewScanner(strings.NewReader(out))
	lines := 0
	for sc.Scan() {
		lines++
	}
	if lines != n {
		t.Fatalf("printed %d events, stored %d", lines, n)
	}
}
