package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/config"
	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/server"
)

// stdioEnv makes the test binary serve MCP on stdin/stdout over the data dir in PROOFGLASS_DATA, as `proofglass mcp` does.
const stdioEnv = "PROOFGLASS_MCP_TEST_STDIO"

func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	if os.Getenv(stdioEnv) == "1" {
		ctx := context.Background()
		lib, err := library.Open(ctx, "")
		if err == nil {
			err = New(lib, Options{}).ServeStdio(ctx)
			lib.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcp test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// library is a data directory with a real PDF ingested (text layer, no OCR) and what the tests know about it.
type testLibrary struct {
	data  string
	doc   kb.Document
	word  string // occurs on one page only
	page  int
	units map[int]int64 // by page
}

func newLibrary(t *testing.T) testLibrary {
	t.Helper()
	src := fixture.Path(t, "pdf/real/blood_loss_report.pdf")
	data := t.TempDir()
	t.Setenv("PROOFGLASS_DATA", data)
	cfg, err := config.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	in := ingest.New(k, cfg, ingest.Options{NoOCR: true, Workers: 2})
	defer in.Close()
	res, err := in.Add(ctx, "reports", []string{src}, nil)
	if err != nil || len(res) != 1 || res[0].Document.Status != kb.StatusReady {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	l := testLibrary{data: data, doc: res[0].Document, units: map[int]int64{}}
	us, err := k.Content.Units(ctx, l.doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	// A long word found on exactly one page (not the first): the right answer to a search, known independently.
	word := regexp.MustCompile(`[A-Za-z]{10,}`)
	pages := map[string]map[int]bool{}
	for _, u := range us {
		l.units[u.Ordinal] = u.ID
		for _, w := range word.FindAllString(u.Text, -1) {
			w = strings.ToLower(w)
			if pages[w] == nil {
				pages[w] = map[int]bool{}
			}
			pages[w][u.Ordinal] = true
		}
	}
	var cands []string
	for w, ps := range pages {
		if len(ps) == 1 && !ps[1] {
			cands = append(cands, w)
		}
	}
	if len(cands) == 0 {
		t.Fatal("no word unique to one page")
	}
	sort.Strings(cands)
	l.word = cands[0]
	for p := range pages[l.word] {
		l.page = p
	}
	return l
}

// open opens the library for the test; it is closed when the test ends.
func (l testLibrary) open(t *testing.T) *library.Library {
	t.Helper()
	lib, err := library.Open(context.Background(), l.data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

// scriptedModel starts the model and points the openai provider profile at it (for this process and its children).
func scriptedModel(t *testing.T, word string) {
	hs := httptest.NewServer(&modeltest.Server{Turns: []string{
		"<think>Find it.</think>\n<search>" + word + "</search>",
		"<think>That page says it.</think>\n<answer>It is discussed in the report.</answer>",
	}})
	t.Cleanup(hs.Close)
	t.Setenv("OPENAI_BASE_URL", hs.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("PROOFGLASS_PROVIDER", "")
	t.Setenv("PROOFGLASS_MODEL", "")
}

func TestStdio(t *testing.T) {
	l := newLibrary(t)
	scriptedModel(t, l.word)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stdioEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	exercise(t, l, &sdk.CommandTransport{Command: cmd})
	if t.Failed() {
		t.Logf("server stderr:\n%s", stderr.String())
	}
}

func TestStreamableHTTP(t *testing.T) {
	l := newLibrary(t)
	scriptedModel(t, l.word)
	lib := l.open(t)
	srv, err := server.New(lib, server.Options{Token: "s3cret-mcp-7d41e0b2", Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Handle("/mcp", New(lib, Options{}).Handler())
	hs := httptest.NewServer(srv)
	defer hs.Close()

	// Without the token nothing is served.
	resp, err := http.Post(hs.URL+"/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("initialize without a token: %s", resp.Status)
	}
	client := &http.Client{Transport: bearer{"s3cret-mcp-7d41e0b2"}}
	exercise(t, l, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: client, MaxRetries: -1})
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// exercise runs every tool and resource, with valid and invalid input, through the SDK's own client.
func exercise(t *testing.T, l testLibrary, tr sdk.Transport) {
	ctx := context.Background()
	var pmu sync.Mutex
	var progress []string
	client := sdk.NewClient(&sdk.Implementation{Name: "proofglass-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			pmu.Lock()
			progress = append(progress, r.Params.Message)
			pmu.Unlock()
		}})
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer cs.Close()
	if info := cs.InitializeResult(); info.ServerInfo.Name != "proofglass" || info.Capabilities.Tools == nil || info.Capabilities.Resources == nil {
		t.Fatalf("initialize result %+v", info)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	if got := strings.Join(names, ","); got != "ask,compare,get_page,get_table,list_documents,search,summarize_document" {
		t.Fatalf("tools %s", got)
	}

	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s(%v): protocol error %v", name, args, err)
		}
		return res
	}
	text := func(res *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text + "\n")
			}
		}
		return b.String()
	}
	structured := func(res *sdk.CallToolResult, v any) {
		t.Helper()
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("structured content %s: %v", b, err)
		}
	}
	images := func(res *sdk.CallToolResult) []image.Image {
		t.Helper()
		var out []image.Image
		for _, c := range res.Content {
			if ic, ok := c.(*sdk.ImageContent); ok {
				if ic.MIMEType != "image/jpeg" {
					t.Errorf("image of type %s", ic.MIMEType)
				}
				img, _, err := image.Decode(bytes.NewReader(ic.Data))
				if err != nil {
					t.Fatalf("image content does not decode: %v", err)
				}
				out = append(out, img)
			}
		}
		return out
	}

	t.Run("search", func(t *testing.T) {
		res := call("search", map[string]any{"query": l.word, "k": 3, "images": 1, "image_width": 300, "collection": "reports"})
		if res.IsError {
			t.Fatalf("search failed: %s", text(res))
		}
		var out SearchOut
		structured(res, &out)
		if len(out.Hits) == 0 || out.Hits[0].Page != l.page || out.Hits[0].UnitID != l.units[l.page] || out.Hits[0].Score <= 0 {
			t.Fatalf("hits %+v, want page %d first", out.Hits, l.page)
		}
		if !strings.Contains(strings.ToLower(out.Hits[0].Snippet), l.word) {
			t.Errorf("snippet %q lacks %q", out.Hits[0].Snippet, l.word)
		}
		imgs := images(res)
		if len(imgs) != 1 || imgs[0].Bounds().Dx() != 300 || imgs[0].Bounds().Dy() < 300 {
			t.Fatalf("images %d, want one portrait page 300 px wide", len(imgs))
		}
		scoped := call("search", map[string]any{"query": l.word, "document_ids": []int64{l.doc.ID}, "images": 0})
		if scoped.IsError || len(images(scoped)) != 0 {
			t.Errorf("search scoped to the document: %s", text(scoped))
		}
		// The report's extracted facets (kind report, year 2022) admit it; another year admits nothing.
		var filtered SearchOut
		structured(call("search", map[string]any{"query": l.word, "where": "kind=report,year=2022", "images": 0}), &filtered)
		if len(filtered.Hits) == 0 || filtered.Hits[0].Page != l.page {
			t.Errorf("search where kind=report,year=2022: %+v", filtered.Hits)
		}
		structured(call("search", map[string]any{"query": l.word, "where": "year=1999", "images": 0}), &filtered)
		if len(filtered.Hits) != 0 {
			t.Errorf("search where year=1999: %+v", filtered.Hits)
		}
		for name, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"empty query":        {map[string]any{"query": "  "}, "query is empty"},
			"no query":           {map[string]any{"k": 3}, "query"},
			"query not a string": {map[string]any{"query": 7}, "query"},
			"k too large":        {map[string]any{"query": "x", "k": 500}, "k must be between"},
			"too many images":    {map[string]any{"query": "x", "images": 50}, "images must be between"},
			"unknown collection": {map[string]any{"query": "x", "collection": "nope"}, `collection "nope": no such collection`},
			"unknown document":   {map[string]any{"query": "x", "document_ids": []int64{999999}}, "document 999999: not found"},
			"bad mode":           {map[string]any{"query": "x", "mode": "magic"}, "unknown mode"},
			"bad where":          {map[string]any{"query": "x", "where": "colour=red"}, "not facet=value"},
		} {
			res := call("search", c.args)
			if !res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s: error %v %q, want %q", name, res.IsError, text(res), c.want)
			}
		}
	})

	t.Run("get_page", func(t *testing.T) {
		res := call("get_page", map[string]any{"document_id": l.doc.ID, "page": l.page, "region": []float64{0, 0, 0.5, 0.25}, "width": 400})
		if res.IsError {
			t.Fatalf("get_page failed: %s", text(res))
		}
		var out PageOut
		structured(res, &out)
		imgs := images(res)
		if len(imgs) != 1 || imgs[0].Bounds().Dx() != 400 || out.Width != 400 || out.UnitID != l.units[l.page] {
			t.Fatalf("page %+v with %d images", out, len(imgs))
		}
		// Half the width and a quarter of the height of an A4 page: about 400 × 283 px.
		if h := imgs[0].Bounds().Dy(); h < 270 || h > 295 {
			t.Errorf("region image is 400×%d, want about 400×283", h)
		}
		if !strings.Contains(strings.ToLower(out.Text), l.word) {
			t.Errorf("page text lacks %q", l.word)
		}
		whole := call("get_page", map[string]any{"unit_id": l.units[1], "text": false})
		if whole.IsError || len(images(whole)) != 1 || images(whole)[0].Bounds().Dx() != 1024 {
			t.Errorf("whole page: %s", text(whole))
		}
		// The largest width asked of a whole A4 page is bounded in pixels and in bytes.
		big := call("get_page", map[string]any{"unit_id": l.units[1], "width": 2048, "text": false})
		for _, c := range big.Content {
			if ic, ok := c.(*sdk.ImageContent); ok && len(ic.Data) > maxImageBytes {
				t.Errorf("a %d-byte image, over the %d-byte bound", len(ic.Data), maxImageBytes)
			}
		}
		if imgs := images(big); len(imgs) != 1 || imgs[0].Bounds().Dx()*imgs[0].Bounds().Dy() > maxPagePixels ||
			imgs[0].Bounds().Dx() < 1500 {
			t.Errorf("a 2048-wide page: %d images, %v", len(imgs), imgs[0].Bounds())
		}
		for name, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"nothing named":  {map[string]any{}, "give unit_id, or document_id and page"},
			"no such unit":   {map[string]any{"unit_id": 999999}, "no unit 999999"},
			"no such page":   {map[string]any{"document_id": l.doc.ID, "page": 400}, "has no page 400"},
			"region flipped": {map[string]any{"unit_id": l.units[1], "region": []float64{0.6, 0, 0.2, 1}}, "region must be"},
			"region outside": {map[string]any{"unit_id": l.units[1], "region": []float64{0, 0, 1.5, 1}}, "region must be"},
			"region short":   {map[string]any{"unit_id": l.units[1], "region": []float64{0, 0, 1}}, "region must be"},
			"too wide":       {map[string]any{"unit_id": l.units[1], "width": 100000}, "width must be between"},
		} {
			res := call("get_page", c.args)
			if !res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s: error %v %q, want %q", name, res.IsError, text(res), c.want)
			}
		}
	})

	t.Run("get_table", func(t *testing.T) {
		res := call("get_table", map[string]any{"document_id": l.doc.ID, "page": 2})
		var out TableOut
		structured(res, &out)
		if res.IsError || out.Tables != 1 || out.Table.Index != 1 || out.Table.Rows != 52 || out.Table.Columns != 6 ||
			out.Table.ColumnHeaders[3] != "Vaginal delivery (677)" {
			t.Fatalf("get_table %+v\n%.500s", out, text(res))
		}
		found := false
		for _, r := range out.Table.Body {
			for _, c := range r.Cells {
				found = found || c.Text == "3370.0 (3090.0-3650.0)" && c.RowLabel == "neonatal weight" && c.ColumnHeader == "Vaginal delivery (677)"
			}
		}
		if !found || !strings.Contains(text(res), "| neonatal weight | g/l | Med (IQR) | 3370.0 (3090.0-3650.0) |") {
			t.Errorf("get_table: the 3370.0 cell is missing from the JSON or the Markdown\n%.800s", text(res))
		}
		for name, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"nothing named":   {map[string]any{}, "missing properties"},
			"negative page":   {map[string]any{"document_id": l.doc.ID, "page": -3}, "give document_id and page"},
			"huge page":       {map[string]any{"document_id": l.doc.ID, "page": int64(1) << 40}, "give document_id and page"},
			"no such doc":     {map[string]any{"document_id": 999999, "page": 1}, "no document 999999"},
			"page past end":   {map[string]any{"document_id": l.doc.ID, "page": 400}, "has 19 pages, not page 400"},
			"no table":        {map[string]any{"document_id": l.doc.ID, "page": 3}, "no table found on the page"},
			"table past end":  {map[string]any{"document_id": l.doc.ID, "page": 2, "table": 5}, "has 1 table, not table 5"},
			"negative table":  {map[string]any{"document_id": l.doc.ID, "page": 2, "table": -1}, "table must be between"},
			"huge table":      {map[string]any{"document_id": l.doc.ID, "page": 2, "table": 1 << 30}, "table must be between"},
			"wrong type page": {map[string]any{"document_id": l.doc.ID, "page": "two"}, ""},
		} {
			res := call("get_table", c.args)
			if !res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s: error %v %q, want %q", name, res.IsError, text(res), c.want)
			}
		}
	})

	t.Run("list_documents", func(t *testing.T) {
		res := call("list_documents", map[string]any{"collection": "reports"})
		var out ListOut
		structured(res, &out)
		if res.IsError || out.Total != 1 || len(out.Documents) != 1 || out.Documents[0].ID != l.doc.ID || out.Documents[0].Pages != 19 {
			t.Fatalf("list %+v %s", out, text(res))
		}
		// Its facets, as extracted at ingest: what a where filter matches.
		if f := out.Documents[0].Facets; f == nil || f.Kind != "report" || f.Year != "2022" || !strings.Contains(text(res), "kind=report\tyear=2022") {
			t.Errorf("facets of the listed document: %+v\n%s", f, text(res))
		}
		for name, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"bad status":         {map[string]any{"status": "lost"}, "unknown status"},
			"negative offset":    {map[string]any{"offset": -1}, "limit must be"},
			"unknown collection": {map[string]any{"collection": "nope"}, "no collection"},
		} {
			res := call("list_documents", c.args)
			if !res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s: error %v %q, want %q", name, res.IsError, text(res), c.want)
			}
		}
	})

	t.Run("resources", func(t *testing.T) {
		rs, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs.Resources) != 1 || rs.Resources[0].URI != documentURI(l.doc.ID) {
			t.Fatalf("resources %+v", rs.Resources)
		}
		doc, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: documentURI(l.doc.ID)})
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Contents) != 1 || !strings.Contains(strings.ToLower(doc.Contents[0].Text), l.word) ||
			!strings.HasPrefix(doc.Contents[0].Text, "# blood_loss_report.pdf") {
			t.Errorf("document resource %.200q", doc.Contents[0].Text)
		}
		img, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: fmt.Sprintf("proofglass://units/%d/image", l.units[2])})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := image.Decode(bytes.NewReader(img.Contents[0].Blob)); err != nil {
			t.Errorf("page image resource: %v", err)
		}
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: documentURI(999999)}); err == nil {
			t.Error("reading a missing document succeeded")
		}
	})

	t.Run("ask", func(t *testing.T) {
		params := &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "Where is " + l.word + " discussed?",
			"mode": "vrag", "provider": "openai", "model": "scripted", "collection": "reports"}}
		params.SetProgressToken("ask-1")
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("ask: %v %s", err, text(res))
		}
		var out AskOut
		structured(res, &out)
		if out.Answer != "It is discussed in the report." || out.Status != "answered" || out.RunID == 0 {
			t.Fatalf("ask result %+v", out)
		}
		if len(out.Citations) != 1 || out.Citations[0].Page != l.page || out.Citations[0].DocumentName != "blood_loss_report.pdf" {
			t.Fatalf("citations %+v, want page %d", out.Citations, l.page)
		}
		if !strings.Contains(text(res), fmt.Sprintf("blood_loss_report.pdf, page %d", l.page)) {
			t.Errorf("answer text lacks its source: %s", text(res))
		}
		// The scripted answer states no figure or name: the grounding pass says so, in the result and its text.
		if out.Grounding == nil || out.Grounding.Summary != "no checkable claim (no figures, dates, quotations or names)" ||
			!strings.Contains(text(res), "Grounding: "+out.Grounding.Summary) {
			t.Errorf("grounding %+v in %s", out.Grounding, text(res))
		}
		// Notifications are sent before the result, but the client hands them to its handler on its own.
		var got string
		fixture.WaitFor(t, 10*time.Second, func() bool {
			pmu.Lock()
			got = strings.Join(progress, " | ")
			pmu.Unlock()
			return strings.Contains(got, "answered")
		}, "the progress notification of the answer")
		for _, want := range []string{"started (vrag)", "searching: " + l.word, "found 10 pages", "answered"} {
			if !strings.Contains(got, want) {
				t.Errorf("progress %q lacks %q", got, want)
			}
		}
		for name, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"empty question":   {map[string]any{"question": ""}, "question is empty"},
			"long question":    {map[string]any{"question": strings.Repeat("why ", 2000)}, "longer than"},
			"unknown mode":     {map[string]any{"question": "q", "mode": "oracle"}, "unknown mode"},
			"unknown provider": {map[string]any{"question": "q", "provider": "nobody"}, "nobody"},
			"unknown document": {map[string]any{"question": "q", "document_ids": []int64{999999}}, "document 999999: not found"},
			"where none":       {map[string]any{"question": "q", "where": "org=nobody at all"}, "no document passes"},
			"where bad":        {map[string]any{"question": "q", "where": "year=soon"}, "want a year"},
		} {
			res := call("ask", c.args)
			if !res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s: error %v %q, want %q", name, res.IsError, text(res), c.want)
			}
		}
	})
}
