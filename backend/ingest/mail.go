package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"proofglass/backend/imagefile"
	"proofglass/backend/kb"
	"proofglass/backend/mail"
)

// maxPartDepth bounds how deeply parts hold parts: a message attached to a message attached to a message is read,
// one deeper is listed on its parent's page but not added.
const maxPartDepth = 3

// addMailbox adds every message of an mbox mailbox as a document of its own, in order, each with its attachments.
// The mailbox itself is no document: its result is skipped (so a watched folder records the file and reads it
// again only when it changes) and holds the messages' results as its parts. A damaged message fails alone; the
// messages before a mailbox's damaged end stay.
func (in *Ingester) addMailbox(ctx context.Context, coll kb.Collection, f file, fh *os.File, progress func(Progress), t turn, pass func()) Result {
	shown := f.shown()
	res := Result{Path: shown, Skipped: true}
	if st, err := fh.Stat(); err == nil {
		res.Size, res.ModTime = st.Size(), st.ModTime()
	}
	// Messages become documents after the files given before the mailbox, and before those given after it.
	if err := t.wait(ctx); err != nil {
		res.Error = fmt.Sprintf("%s: %v", shown, err)
		return res
	}
	defer pass()
	stem := strings.TrimSuffix(f.displayName(), filepath.Ext(f.displayName()))
	err := mail.Mailbox(ctx, ctxReader{ctx, fh}, func(n int, raw []byte) error {
		name := fmt.Sprintf("%s %d.eml", stem, n)
		if m, err := mail.ParseHeader(bytes.NewReader(raw)); err == nil && m.Subject != "" {
			name = fmt.Sprintf("%s %d - %s.eml", stem, n, m.Subject)
		}
		part := file{name: mail.SafeName(name, n), source: fmt.Sprintf("%s#%d", shown, n), depth: f.depth + 1, fromFolder: true}
		res.Parts = append(res.Parts, in.addPart(ctx, coll, part, raw, progress))
		return ctx.Err()
	})
	if err != nil {
		res.Skipped = false
		res.Error = fmt.Sprintf("%s: %v", shown, err)
		in.emit(progress, failed(Progress{Name: f.displayName(), Path: shown, Collection: coll.Name, Status: kb.StatusFailed},
			&readError{shown, err}))
		if len(res.Parts) > 0 {
			res.Error += fmt.Sprintf(" (the %d messages before it were read)", len(res.Parts))
		}
	}
	return res
}

// addAttachments adds the attachments of a message document as documents of their own, each linked to the
// message under its name there. Attachments of kinds Proofglass does not read are listed on the message's page
// only.
func (in *Ingester) addAttachments(ctx context.Context, coll kb.Collection, msg kb.Document, f file, progress func(Progress)) []Result {
	if f.depth >= maxPartDepth {
		return nil
	}
	fh, err := in.kb.Blobs.Open(msg.Blob)
	if err != nil {
		in.log.Warn("ingest: attachments", "document", msg.Name, "err", err)
		return nil
	}
	m, err := mail.Parse(fh)
	fh.Close()
	if err != nil {
		in.log.Warn("ingest: attachments", "document", msg.Name, "err", err)
		return nil
	}
	var out []Result
	for i, a := range m.Attachments {
		part := file{name: a.Name, source: fmt.Sprintf("%s#%s", msg.SourcePath, a.Name), depth: f.depth + 1, fromFolder: true}
		r := in.addPart(ctx, coll, part, a.Data, progress)
		if r.Skipped || r.Document.ID == 0 {
			continue
		}
		if err := in.kb.Docs.LinkDocuments(context.WithoutCancel(ctx), kb.DocumentLink{ParentID: msg.ID, ChildID: r.Document.ID,
			Kind: kb.LinkAttachment, Name: a.Name}); err != nil {
			in.log.Warn("ingest: link an attachment", "document", msg.Name, "attachment", i+1, "err", err)
		}
		out = append(out, r)
	}
	return out
}

// addPart adds content held in another file (a mailbox's message, a message's attachment) through a private
// temporary copy beside the blob store, named with the part's extension so that the kinds told apart by name
// (CSV, Markdown, ...) are.
func (in *Ingester) addPart(ctx context.Context, coll kb.Collection, f file, data []byte, progress func(Progress)) Result {
	dir, err := os.MkdirTemp(filepath.Join(in.kb.Blobs.Dir(), "tmp"), "part-*")
	if err != nil {
		return Result{Path: f.shown(), Error: fmt.Sprintf("%s: %v", f.shown(), err)}
	}
	defer os.RemoveAll(dir)
	ext := strings.ToLower(filepath.Ext(f.name))
	if len(ext) > 16 {
		ext = ""
	}
	f.path = filepath.Join(dir, "part"+ext)
	if err := os.WriteFile(f.path, data, 0o600); err != nil {
		return Result{Path: f.shown(), Error: fmt.Sprintf("%s: %v", f.shown(), err)}
	}
	return in.addFile(ctx, coll, f, "", nil, progress, turns(1)[0])
}

// flattenParts lists each result's parts (and theirs) after it, and a result that is no document (a mailbox) as its
// parts.
func flattenParts(results []Result) []Result {
	var out []Result
	for _, r := range results {
		parts := r.Parts
		r.Parts = nil
		if !(r.Skipped && r.Document.ID == 0 && len(parts) > 0) {
			out = append(out, r)
		}
		out = append(out, flattenParts(parts)...)
	}
	return out
}

// messageMeta reads what a message document's facets come from: its subject, sender, recipients and date (its
// header only: the body and attachments are read once, by addAttachments).
func messageMeta(path string) (map[string]string, string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer fh.Close()
	m, err := mail.ParseHeader(fh)
	if err != nil {
		return nil, "", err
	}
	info := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			info[k] = v
		}
	}
	set("title", m.Subject)
	set("subject", m.Subject)
	set("author", m.From)
	set("from", m.From)
	set("to", strings.Join(nonEmpty(m.To, m.Cc), ", "))
	date := ""
	if !m.Date.IsZero() {
		date = m.Date.Format("2006-01-02")
	}
	return info, date, nil
}

func nonEmpty(v ...string) []string {
	var out []string
	for _, s := range v {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// isMessage reports whether a document is an e-mail message.
func isMessage(d kb.Document) bool { return d.MIME == imagefile.EML.DocumentMIME() }
