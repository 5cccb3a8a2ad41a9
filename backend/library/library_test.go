package library

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	"os"
	"testing"

	"proofglass/backend/agent"
	"proofglass/backend/fixture"
	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/kbagent"
	"proofglass/backend/model/modeltest"
	"proofglass/backend/pdf"
	"proofglass/backend/vision"
)

// TestMain lets the test binary serve as the MuPDF worker, as the proofglass binary does.
func TestMain(m *testing.M) {
	pdf.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

func openWithDocs(t *testing.T) (*Library, map[string]kb.Document) {
	t.Helper()
	ctx := context.Background()
	lib, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	res, err := in.Add(ctx, "docs", []string{fixture.Path(t, "pdf/real/blood_loss_report.pdf"), fixture.Path(t, "images/charts/bkf_plot.png")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]kb.Document{}
	for _, r := range res {
		if r.Error != "" {
			t.Fatal(r.Error)
		}
		docs[r.Document.Kind] = r.Document
	}
	return lib, docs
}

func TestPageImage(t *testing.T) {
	ctx := context.Background()
	lib, docs := openWithDocs(t)
	if err := lib.WarmDocument(ctx, docs["pdf"].ID); err != nil {
		t.Fatal(err)
	}
	pages, _ := lib.KB.Content.Units(ctx, docs["pdf"].ID)
	img, _ := lib.KB.Content.Units(ctx, docs["image"].ID)
	cases := map[string]struct {
		unit  kb.Unit
		width int
	}{
		"a PDF page is rendered at the width asked": {pages[2], 800},
		"a sharper zoom of the same page":           {pages[2], 2000},
		"an image returns its stored picture":       {img[0], 300},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := lib.PageImage(ctx, c.unit.ID, c.width)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			want := c.width
			if c.unit.Kind != kb.UnitPage {
				want = int(c.unit.Width) // the stored image, whatever the width asked
			}
			if cfg.Width < want-2 || cfg.Width > want+2 {
				t.Errorf("width %d, want %d", cfg.Width, want)
			}
		})
	}
	if _, err := lib.PageImage(ctx, 999999, 100); err == nil {
		t.Error("a missing unit rendered")
	}
}

func TestConversationTurns(t *testing.T) {
	ctx := context.Background()
	lib, _ := openWithDocs(t)
	conv, err := lib.BeginTurn(ctx, 0, "What is measured?")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []agent.Kind
	turn, err := lib.AnswerTurn(ctx, conv, modeltest.Always("<answer>Factor XIII</answer>"), agent.Config{Mode: agent.ModeVanilla, Model: "scripted"}, "What is measured?",
		func(ev agent.Event) { kinds = append(kinds, ev.Kind) })
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := lib.KB.History.Messages(ctx, conv)
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Content != "Factor XIII" || msgs[1].RunID != turn.RunID {
		t.Fatalf("messages %+v", msgs)
	}
	if kinds[0] != agent.KindRunStarted || kinds[len(kinds)-1] != agent.KindDone {
		t.Errorf("events %v", kinds)
	}
	// A second question continues the same conversation.
	if again, err := lib.BeginTurn(ctx, conv, "And when?"); err != nil || again != conv {
		t.Fatalf("second turn: %d %v", again, err)
	}
}

// An encrypted PDF added with its password renders later — in the viewer and for the agent — without asking again.
func TestEncryptedPDFRendersWithTheRememberedPassword(t *testing.T) {
	ctx := context.Background()
	lib, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	in := ingest.New(lib.KB, lib.Config, ingest.Options{NoOCR: true, Workers: 1})
	defer in.Close()
	res, err := in.AddRequest(ctx, ingest.Request{Collection: "locked", Paths: []string{fixture.Path(t, "bad/pdf/qpdf/enc-R3,V2,U=view,O=master.pdf")},
		Password: "view"}, nil)
	if err != nil || len(res) != 1 || res[0].Error != "" {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	units, _ := lib.KB.Content.Units(ctx, res[0].Document.ID)
	if _, err := lib.PageImage(ctx, units[0].ID, 400); err != nil {
		t.Errorf("viewer: %v", err)
	}
	// Fresh libraries, so no renderer has the file open already: the agent's renderer gets the password from the
	// library; one without it fails.
	render := func(pw func(kb.Document) string) error {
		l, err := OpenConfig(ctx, lib.Config)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if pw != nil {
			pw = l.AgentDeps(modeltest.Always("<answer>Factor XIII</answer>"), nil).Password
		}
		img, err := (&kbagent.Renderer{KB: l.KB, PDF: l.PDF, Password: pw}).Render(ctx, kbagent.ID(units[0].ID), vision.Rect{}, vision.Size{W: 200, H: 260})
		if err == nil && img.Bounds().Dx() != 200 {
			t.Errorf("width %d", img.Bounds().Dx())
		}
		return err
	}
	if err := render(lib.PDFPassword); err != nil {
		t.Errorf("agent render with the remembered password: %v", err)
	}
	if err := render(nil); err == nil {
		t.Error("rendered an encrypted page without its password")
	}
}
