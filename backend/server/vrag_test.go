package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pagecache"
	"proofglass/backend/pagefile"
)

// vragClient speaks exactly as VRAG's clients do: no Authorization header, Host 0.0.0.0:8002 (they are told the
// engine listens on 0.0.0.0:8002), requests' default headers.
type vragClient struct {
	t   *testing.T
	url string
}

func newNoTokenServer(t *testing.T, lib *library.Library, o Options) *vragClient {
	t.Helper()
	o.Addr = "127.0.0.1:0"
	s, err := New(lib, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return &vragClient{t: t, url: srv.URL}
}

func (c *vragClient) send(method, path string, body []byte, hdr map[string]string) (int, []byte, http.Header) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.url+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Host = "0.0.0.0:8002"
	req.Header.Set("User-Agent", "python-requests/2.32.3")
	req.Header.Set("Accept", "*/*")
	if body != nil {
		req.Header.Set("Content-Type", "application/json") // requests.post(json=...)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// getSearch is requests.get(url, params={"queries": qs}).
func (c *vragClient) getSearch(qs []string) [][]legacyItem {
	c.t.Helper()
	v := url.Values{"queries": qs}
	code, b, _ := c.send("GET", "/search?"+v.Encode(), nil, nil)
	if code != 200 {
		c.t.Fatalf("GET /search: %d %s", code, b)
	}
	var out [][]legacyItem
	if err := json.Unmarshal(b, &out); err != nil {
		c.t.Fatalf("GET /search body: %v", err)
	}
	return out
}

func (c *vragClient) postSearch(body any) (int, []byte) {
	c.t.Helper()
	b, _ := json.Marshal(body)
	code, out, _ := c.send("POST", "/search", b, nil)
	return code, out
}

// edgeQueries are what a policy in training emits: empty <search></search>, blanks, nonsense, CJK, FTS syntax.
var edgeQueries = []string{"", "   \t\n", "zzzqqq xxyyzz", "出血量", `"unbalanced AND (NEAR* OR ^col:`, "blood loss",
	"NOT", "*", strings.Repeat("haemorrhage ", 5000)}

func unitCount(t *testing.T, lib *library.Library) int {
	counts, err := lib.KB.Search.ReadyUnitCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// namedUnits lists the units of the (oldest) document named name, in page order, with their text and word boxes
// unless refs.
func namedUnits(t *testing.T, lib *library.Library, name string, refs bool) []kb.Unit {
	t.Helper()
	ctx := context.Background()
	ids, err := lib.KB.Docs.DocumentIDsNamed(ctx, name, 0)
	if err != nil || len(ids) == 0 {
		t.Fatalf("no document %s: %v", name, err)
	}
	list := lib.KB.Content.Units
	if refs {
		list = lib.KB.Content.UnitRefs
	}
	us, err := list(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// checkPageFile asserts a returned file opens as a JPEG page at 200 DPI named {stem}_{page}.jpg.
func checkPageFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("image_file %s: %v", path, err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || format != "jpeg" || cfg.Width == 0 {
		t.Fatalf("image_file %s: %v %s", path, err, format)
	}
	base := filepath.Base(path)
	if strings.HasPrefix(base, "blood_loss_report_") {
		if d := pagefile.JPEGDensity(b); d != 200 {
			t.Errorf("%s: JFIF density %d, want 200 dpi", base, d)
		}
		// The page's width in points at 200 DPI (A4, 595 pt: 1653 px).
		var page int
		fmt.Sscanf(strings.TrimPrefix(base, "blood_loss_report_"), "%d.jpg", &page)
		var pt float64
		for _, u := range namedUnits(t, fixLib, "blood_loss_report.pdf", true) {
			if u.Ordinal == page {
				pt = u.Width
			}
		}
		want := pt * 200 / 72
		if pt == 0 || math.Abs(float64(cfg.Width)-want) > 1.5 {
			t.Errorf("%s: %d px wide, want %.1f (%.1f pt at 200 dpi)", base, cfg.Width, want, pt)
		}
	}
}

func TestVRAGClients(t *testing.T) {
	f := newFixture(t, nil)
	c := newNoTokenServer(t, f.lib, Options{})
	n := unitCount(t, f.lib)
	if n < 10 {
		t.Fatalf("fixture has %d units; the suite needs at least 10", n)
	}

	t.Run("demo agent", func(t *testing.T) {
		// demo/vrag_agent.py: search_results = requests.get(url, params={"queries": [query]}).json()[0]
		for _, q := range edgeQueries {
			res := c.getSearch([]string{q})
			if len(res) != 1 || len(res[0]) != 10 {
				t.Fatalf("query %.30q: %d lists, first of %d; want 1 of 10", q, len(res), len(res[0]))
			}
			checkPageFile(t, res[0][0].ImageFile)
		}
	})

	t.Run("VRAG-RL rollout: 100 queries per GET", func(t *testing.T) {
		qs := make([]string, 100)
		for i := range qs {
			qs[i] = edgeQueries[i%len(edgeQueries)]
		}
		res := c.getSearch(qs)
		if len(res) != 100 {
			t.Fatalf("%d lists for 100 queries", len(res))
		}
		seen := map[string]bool{}
		for i, list := range res {
			if len(list) != 10 {
				t.Fatalf("query %d (%.30q): %d results, want 10", i, qs[i], len(list))
			}
			files := map[string]bool{}
			for j, it := range list {
				if it.Idx != j || files[it.ImageFile] {
					t.Errorf("query %d item %d: idx %d, duplicate %v", i, j, it.Idx, files[it.ImageFile])
				}
				files[it.ImageFile] = true
				if !seen[it.ImageFile] {
					seen[it.ImageFile] = true
					checkPageFile(t, it.ImageFile)
				}
			}
		}
		// The same query is answered the same way wherever it sits in the batch.
		if fmt.Sprint(res[0]) != fmt.Sprint(res[len(edgeQueries)]) {
			t.Error("one query answered differently in two places of a batch")
		}
	})

	t.Run("VimRAG POST", func(t *testing.T) {
		code, b := c.postSearch(map[string]any{"queries": []string{"blood loss", "", "出血量"}, "top_k": 3})
		if code != 200 {
			t.Fatalf("%d %s", code, b)
		}
		var body struct {
			Results []queryResult `json:"results"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		for i, r := range body.Results {
			if len(r.Data) != 3 || len(r.Score) != 3 || len(r.Indice) != 3 {
				t.Fatalf("query %d: %+v", i, r)
			}
			for _, d := range r.Data {
				if d.Type != "image" || d.Collection != "docs" || (d.UnitType != "page" && d.UnitType != "image") {
					t.Errorf("item %+v", d)
				}
			}
		}
		if !body.Results[0].Data[0].Found || body.Results[1].Data[0].Found {
			t.Errorf("found flags: a hit for 'blood loss', fill for a blank query: %+v", body.Results[:2])
		}
	})

	t.Run("1,000 queries in one request", func(t *testing.T) {
		qs := make([]string, 1000)
		for i := range qs {
			qs[i] = fmt.Sprintf("%s %d", edgeQueries[i%len(edgeQueries)], i)
		}
		code, b := c.postSearch(map[string]any{"queries": qs, "top_k": 10, "vrag_ret": true})
		if code != 200 {
			t.Fatalf("%d %.200s", code, b)
		}
		var lists [][]legacyItem
		if err := json.Unmarshal(b, &lists); err != nil || len(lists) != 1000 {
			t.Fatalf("%d lists (%v)", len(lists), err)
		}
		for i, l := range lists {
			if len(l) != 10 {
				t.Fatalf("query %d: %d results", i, len(l))
			}
		}
	})

	t.Run("top_k over N gives N", func(t *testing.T) {
		code, b := c.postSearch(map[string]any{"queries": []string{"blood", ""}, "top_k": 100})
		var body struct {
			Results []queryResult `json:"results"`
		}
		json.Unmarshal(b, &body)
		if code != 200 || len(body.Results) != 2 || len(body.Results[0].Data) != n || len(body.Results[1].Data) != n {
			t.Fatalf("%d: want %d items per query", code, n)
		}
	})

	t.Run("errors are {detail}", func(t *testing.T) {
		cases := map[string]struct {
			method, path, body string
			want               int
		}{
			"top_k zero":          {"POST", "/search", `{"queries":["a"],"top_k":0}`, 400},
			"top_k huge":          {"GET", "/search?queries=a&top_k=99999", "", 400},
			"too much work":       {"POST", "/search", `{"queries":[` + strings.Repeat(`"a",`, 2500) + `"a"],"top_k":10}`, 400},
			"queries not strings": {"POST", "/search", `{"queries":[1,2]}`, 400},
			"unknown corpus":      {"POST", "/search", `{"queries":["a"],"search_corpus":"nope"}`, 404},
			"bad mode":            {"GET", "/search?queries=a&mode=psychic", "", 400},
			"no queries":          {"GET", "/search", "", 400},
		}
		for name, tc := range cases {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			code, b, _ := c.send(tc.method, tc.path, body, nil)
			var d struct {
				Detail string `json:"detail"`
			}
			if code != tc.want || json.Unmarshal(b, &d) != nil || d.Detail == "" {
				t.Errorf("%s: %d %s, want %d with a detail", name, code, b, tc.want)
			}
		}
	})

	t.Run("search_corpus selects the collection", func(t *testing.T) {
		code, b := c.postSearch(map[string]any{"queries": []string{"blood"}, "top_k": 2, "search_corpus": "docs"})
		if code != 200 || !strings.Contains(string(b), filepath.Join("pages", "docs")+"/") {
			t.Errorf("%d %.300s", code, b)
		}
	})
}

// ndcg is VRAG-RL's retrieval part of the reward: gold names rebuilt as file_name without ".pdf" + "_" + page +
// ".jpg", binary relevance of each retrieved basename, DCG over the ideal DCG.
func ndcg(retrieved []string, fileName string, pages []int) float64 {
	gold := map[string]bool{}
	for _, p := range pages {
		gold[strings.Replace(fileName, ".pdf", "", 1)+"_"+fmt.Sprint(p)+".jpg"] = true
	}
	var dcg, idcg float64
	for i, r := range retrieved {
		if gold[filepath.Base(r)] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(len(gold), len(retrieved)) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func TestNDCGFromFileNameAndPage(t *testing.T) {
	f := newFixture(t, nil)
	c := newNoTokenServer(t, f.lib, Options{})
	// The gold page is found independently of search: the page whose text holds a phrase no other page has.
	var page int
	var text string
	var texts []string
	if err := f.lib.KB.Search.EachLibraryUnitText(context.Background(), func(s string) error {
		texts = append(texts, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, u := range namedUnits(t, f.lib, "blood_loss_report.pdf", false) {
		if page != 0 {
			break
		}
		if utf8.RuneCountInString(u.Text) <= 200 {
			continue
		}
		words := strings.Fields(u.Text)
		for i := 0; i+4 < len(words) && page == 0; i += 3 {
			phrase := strings.Join(words[i:i+4], " ")
			n := 0
			for _, s := range texts {
				if strings.Contains(s, phrase) {
					n++
				}
			}
			if n == 1 && len(phrase) > 20 {
				page, text = u.Ordinal, phrase
			}
		}
	}
	if page == 0 {
		t.Fatal("no page with a unique phrase")
	}
	res := c.getSearch([]string{text})
	var files []string
	for _, it := range res[0] {
		files = append(files, it.ImageFile)
	}
	if got := ndcg(files, "blood_loss_report.pdf", []int{page}); got != 1.0 {
		t.Errorf("NDCG for %q (gold page %d) = %v; returned %v", text, page, got, files)
	}
	if got := ndcg(files[1:], "blood_loss_report.pdf", []int{page}); got == 1.0 {
		t.Error("NDCG is 1.0 without the gold page first: the check proves nothing")
	}
}

// TestStalePageImage: delete a document, add another, search, restart: never the deleted document's image.
func TestStalePageImage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *library.Library {
		lib, err := library.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		return lib
	}
	add := func(lib *library.Library, rel string) {
		in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 1})
		defer in.Close()
		res, err := in.Add(ctx, "docs", []string{testdata(t, rel)}, nil)
		if err != nil || res[0].Error != "" {
			t.Fatalf("add %s: %v %+v", rel, err, res)
		}
	}
	lib := open()
	add(lib, "images/charts/bkf_plot.png")
	c := newNoTokenServer(t, lib, Options{})
	first := c.getSearch([]string{""})[0][0].ImageFile
	old, _ := os.ReadFile(first)
	docs, _ := lib.KB.Docs.Documents(ctx, 0)
	units, _ := lib.KB.Content.Units(ctx, docs[0].ID)
	if err := lib.KB.Docs.DeleteDocument(ctx, docs[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("deleted document's page file still there: %v", err)
	}
	if code, _, _ := c.send("GET", fmt.Sprintf("/v1/units/%d/image", units[0].ID), nil, nil); code != 404 {
		t.Errorf("deleted unit's image: %d, want 404", code)
	}
	add(lib, "images/charts/bkf_plot.png") // the same file again: same content, new ids
	add(lib, "pdf/scanned/typewriter.png")
	check := func(c *vragClient) {
		t.Helper()
		for _, it := range c.getSearch([]string{""})[0] {
			b, err := os.ReadFile(it.ImageFile)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(it.ImageFile, "typewriter") && bytes.Equal(b, old) {
				t.Errorf("%s holds the deleted document's image", it.ImageFile)
			}
		}
	}
	check(c)
	// Another process deletes a document while the server runs: the files go at the next sweep, and search never
	// returns them.
	other := open()
	docs, _ = other.KB.Docs.Documents(ctx, 0)
	var gone string
	for _, d := range docs {
		if d.Name == "typewriter.png" {
			gone = d.SHA256
			other.KB.Docs.DeleteDocument(ctx, d.ID)
		}
	}
	other.Close()
	for _, it := range c.getSearch([]string{"", "typewriter"})[1] {
		if strings.Contains(it.ImageFile, gone) {
			t.Errorf("search returned a document deleted by another process: %s", it.ImageFile)
		}
	}
	lib.Close()
	// Restart.
	lib2 := open()
	defer lib2.Close()
	s2, _ := New(lib2, Options{Addr: "127.0.0.1:0"})
	defer s2.Close()
	if _, err := s2.SweepPages(ctx); err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(library.PagesDir(lib2.Config), "*", gone+"-*"))
	if len(matches) != 0 {
		t.Errorf("sweep after restart left %v", matches)
	}
	srv := httptest.NewServer(s2)
	defer srv.Close()
	check(&vragClient{t: t, url: srv.URL})
}

func TestNoTokenGuards(t *testing.T) {
	f := newFixture(t, nil)
	c := newNoTokenServer(t, f.lib, Options{Chat: modeltest.Always("<answer>x</answer>")})
	ask := []byte(`{"question":"q","mode":"vanilla"}`)
	cases := map[string]struct {
		method, path string
		body         []byte
		hdr          map[string]string
		want         int
	}{
		"VRAG's Host 0.0.0.0:8002":        {"GET", "/search?queries=a", nil, nil, 200},
		"localhost":                       {"GET", "/search?queries=a", nil, map[string]string{"Host": "localhost:8002"}, 200},
		"[::1]":                           {"GET", "/search?queries=a", nil, map[string]string{"Host": "[::1]:8002"}, 200},
		"DNS rebinding: foreign Host":     {"GET", "/search?queries=a", nil, map[string]string{"Host": "evil.example:8002"}, 403},
		"rebinding to a blob":             {"GET", "/v1/blobs/" + strings.Repeat("a", 64), nil, map[string]string{"Host": "attacker.test"}, 403},
		"LAN address as Host":             {"GET", "/search?queries=a", nil, map[string]string{"Host": "192.168.1.20:8002"}, 403},
		"cross-site POST, text/plain":     {"POST", "/v1/ask", ask, map[string]string{"Content-Type": "text/plain"}, 415},
		"cross-site POST, form":           {"POST", "/search", []byte(`queries=a`), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		"cross-origin JSON POST":          {"POST", "/v1/ask", ask, map[string]string{"Origin": "https://evil.example"}, 403},
		"Sec-Fetch-Site cross-site":       {"GET", "/search?queries=a", nil, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		"same-machine origin":             {"GET", "/search?queries=a", nil, map[string]string{"Origin": "http://127.0.0.1:5173"}, 200},
		"ask with an unknown mode":        {"POST", "/v1/ask", []byte(`{"question":"q","mode":"psychic"}`), nil, 400},
		"ask with an oversized question":  {"POST", "/v1/ask", []byte(`{"question":"` + strings.Repeat("a", 20000) + `"}`), nil, 400},
		"ask in an unknown collection":    {"POST", "/v1/ask", []byte(`{"question":"q","mode":"vanilla","collection":"nope"}`), nil, 404},
		"ask, valid, from VRAG's Host":    {"POST", "/v1/ask", ask, nil, 200},
		"region overflow":                 {"GET", "/v1/units/1/image?region=0,0,4294967296,4294967296", nil, nil, 400},
		"region NaN":                      {"GET", "/v1/units/1/image?region=NaN,0,10,10", nil, nil, 400},
		"region Inf":                      {"GET", "/v1/units/1/image?region=0,0,Inf,10", nil, nil, 400},
		"region zero area":                {"GET", "/v1/units/1/image?region=5,5,5,50", nil, nil, 400},
		"region three numbers":            {"GET", "/v1/units/1/image?region=1,2,3", nil, nil, 400},
		"max_pixels over the cap":         {"GET", "/v1/units/1/image?max_pixels=999999999999", nil, nil, 400},
		"unit id overflow":                {"GET", "/v1/units/99999999999999999999/image", nil, nil, 400},
		"region past the page is clipped": {"GET", "/v1/units/1/image?region=1000000,1000000,1000001,1000001", nil, nil, 400},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, b, _ := c.send(tc.method, tc.path, tc.body, tc.hdr)
			if code != tc.want {
				t.Errorf("status %d, want %d: %.200s", code, tc.want, b)
			}
		})
	}
	// With a token, the token is the guard: a foreign Host with the token is served (a LAN or proxied setup).
	code := f.do(t, "GET", "/search?queries=a", f.token, nil).StatusCode
	if code != 200 {
		t.Errorf("token mode: %d", code)
	}
}

func TestSaturatedServerSays503(t *testing.T) {
	f := newFixture(t, nil)
	s, err := New(f.lib, Options{Addr: "127.0.0.1:0", Workers: 1, Queue: 1, QueueWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := &vragClient{t: t, url: srv.URL}
	release, ok := s.work.acquire(context.Background(), 1) // a long search holds the only slot
	if !ok {
		t.Fatal("no slot")
	}
	code, b, h := c.send("GET", "/search?queries=blood", nil, nil)
	if code != 503 || h.Get("Retry-After") == "" || !strings.Contains(string(b), "detail") {
		t.Errorf("saturated: %d Retry-After=%q %s", code, h.Get("Retry-After"), b)
	}
	release()
	if code, _, _ := c.send("GET", "/search?queries=blood", nil, nil); code != 200 {
		t.Errorf("after release: %d", code)
	}
}

func TestHundredParallelClients(t *testing.T) {
	f := newFixture(t, nil)
	c := newNoTokenServer(t, f.lib, Options{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := url.Values{"queries": {fmt.Sprintf("blood %d", i), edgeQueries[i%len(edgeQueries)]}}
			req, _ := http.NewRequest("GET", c.url+"/search?"+v.Encode(), nil)
			req.Host = "0.0.0.0:8002"
			resp, err := http.DefaultClient.Do(req)
			code := 0
			if err == nil {
				var lists [][]legacyItem
				if json.NewDecoder(resp.Body).Decode(&lists) == nil && len(lists) == 2 && len(lists[1]) == 10 {
					code = resp.StatusCode
				} else {
					code = -resp.StatusCode
				}
				resp.Body.Close()
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 100 {
		t.Errorf("status counts (negative: bad body) %v, want 100 × 200", codes)
	}
}

func TestHTTPServerHasTimeouts(t *testing.T) {
	s := &Server{}
	hs := s.HTTPServer()
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 {
		t.Errorf("a timeout or limit is unset: %+v", hs)
	}
}

// A page whose file name had to be cut to fit the file system keeps VRAG's whole name in the answer's name, so a
// client scoring against its golden pages ({stem}_{page}) still finds it (issue 41, row 2).
func TestQueryResultNamesCutPages(t *testing.T) {
	stem := strings.Repeat("r", 250)
	it := item{kb.PageItem{UnitID: 7, DocID: 3, DocName: stem + ".pdf", Collection: "c", Ordinal: 12, UnitKind: kb.UnitPage}}
	path := filepath.Join("cache", pagecache.FileName(it.DocName, true, it.Ordinal))
	qr := queryResultOf([]candidate{{it: it, found: true}}, map[int64]string{7: path}, 5)
	if len(qr.Data) != 1 {
		t.Fatalf("%+v", qr)
	}
	d := qr.Data[0]
	if d.Name != stem+"_12" || len(filepath.Base(d.FilePath)) > pagecache.NameMax || !strings.HasSuffix(d.FilePath, "_12.jpg") {
		t.Errorf("name %q, file %q (%d bytes)", d.Name, filepath.Base(d.FilePath), len(filepath.Base(d.FilePath)))
	}
}
