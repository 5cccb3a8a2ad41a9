package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"proofglass/backend/kb"
)

// Documents are resources: proofglass://documents/ID reads as Markdown (what the document is, then its pages' text), and
// proofglass://units/ID/image is a page's image.
const (
	documentPrefix = "proofglass://documents/"
	unitPrefix     = "proofglass://units/"
	// maxResourceText bounds a document read: a 2,000-page manual would not fit any client's context.
	maxResourceText = 256 << 10
	// listPage is how many documents one resources/list answer holds.
	listPage = 500
)

func documentURI(id int64) string { return documentPrefix + strconv.FormatInt(id, 10) }

func (s *Server) addResources() {
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{Name: "document", Title: "A document of the library",
		URITemplate: documentPrefix + "{id}", MIMEType: "text/markdown",
		Description: "A document: its name, kind, pages and status, then the text of its pages (long documents are cut; use get_page for a page)."},
		s.readDocument)
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{Name: "page-image", Title: "A page image",
		URITemplate: unitPrefix + "{id}/image", MIMEType: "image/jpeg",
		Description: "A page (unit) rendered 1024 pixels wide."}, s.readUnitImage)
	// The documents change while the server runs, so resources/list is answered from the knowledge base rather than
	// from resources registered once.
	s.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			cursor := ""
			if p, ok := req.GetParams().(*sdk.ListResourcesParams); ok && p != nil {
				cursor = p.Cursor
			}
			return s.listResources(ctx, cursor)
		}
	})
}

func (s *Server) listResources(ctx context.Context, cursor string) (*sdk.ListResourcesResult, error) {
	offset := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid cursor %q", cursor)
		}
		offset = n
	}
	docs, err := s.documents(ctx, "", "")
	if err != nil {
		return nil, err
	}
	res := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
	docs = docs[min(offset, len(docs)):]
	if len(docs) > listPage {
		docs = docs[:listPage]
		res.NextCursor = strconv.Itoa(offset + listPage)
	}
	for _, d := range docs {
		res.Resources = append(res.Resources, &sdk.Resource{URI: d.URI, Name: d.Name, MIMEType: "text/markdown",
			Description: fmt.Sprintf("%s in collection %s, %d pages, %s", d.Kind, d.Collection, d.Pages, d.Status)})
	}
	return res, nil
}

// idIn parses the number between prefix and suffix of a URI.
func idIn(uri, prefix, suffix string) (int64, bool) {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, suffix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}

func (s *Server) readDocument(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := idIn(uri, documentPrefix, "")
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	d, err := s.lib.KB.Docs.Document(ctx, id)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	c, err := s.lib.KB.Docs.Collection(ctx, d.CollectionID)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nDocument %d in collection %s: %s, %d pages, %s.\n", d.Name, d.ID, c.Name, d.Kind, d.Pages, d.Status)
	if d.Error != "" {
		fmt.Fprintf(&b, "Error: %s\n", d.Error)
	}
	// Text only: the word boxes are most of a unit row and a resource never shows them.
	n, cut := 0, false
	err = s.lib.KB.Content.EachUnitText(ctx, id, func(u kb.Unit) bool {
		section := fmt.Sprintf("\n## %s %d (unit %d)\n\n%s\n", u.Kind, u.Ordinal, u.ID, strings.TrimSpace(u.Text))
		if b.Len()+len(section) > maxResourceText {
			cut = true
			return false
		}
		b.WriteString(section)
		n++
		return true
	})
	if err != nil {
		return nil, err
	}
	if cut {
		fmt.Fprintf(&b, "\n(cut after %d of %d pages: the document is longer than %d KiB of text; read further pages with get_page)\n",
			n, d.Pages, maxResourceText>>10)
	}
	text := b.String()
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

func (s *Server) readUnitImage(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := idIn(uri, unitPrefix, "/image")
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if _, err := s.lib.KB.Content.Unit(ctx, id); err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	jpg, _, err := s.render(ctx, id, nil, 1024)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "image/jpeg", Blob: jpg}}}, nil
}
