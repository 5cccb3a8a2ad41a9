package summary

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"proofglass/backend/agent"
)

// WriteJSON writes g as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// mdText keeps document text from being read as Markdown structure.
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, "#", `\#`, "|", `\|`)
	return r.Replace(s)
}

// Markdown is g as a Markdown page: the title, the sections as a nested list, then tables, figures and key
// figures, each with its page.
func (g Glance) Markdown() string {
	var b strings.Builder
	g.heading(&b)
	g.body(&b)
	return b.String()
}

func (g Glance) heading(b *strings.Builder) {
	title := g.Title
	if title == "" {
		title = g.Name
	}
	fmt.Fprintf(b, "# %s\n\n", mdText(title))
	if g.Title != "" && g.Name != "" {
		fmt.Fprintf(b, "%s · ", mdText(g.Name))
	}
	fmt.Fprintf(b, "%d pages\n\n", g.Pages)
}

// body writes the outline's lists.
func (g Glance) body(b *strings.Builder) {
	if len(g.Sections) > 0 {
		b.WriteString("## Sections\n\n")
		for _, s := range g.Sections {
			indent := strings.Repeat("  ", max(0, s.Level-1))
			num := ""
			if s.Number != "" {
				num = mdText(s.Number) + " "
			}
			fmt.Fprintf(b, "%s- %s%s — p. %d\n", indent, num, mdText(s.Title), s.Page)
		}
		b.WriteString("\n")
	}
	if len(g.Tables) > 0 {
		b.WriteString("## Tables\n\n")
		for _, t := range g.Tables {
			caption := t.Caption
			if caption == "" {
				caption = fmt.Sprintf("Table %d of the page", t.Index)
			}
			size := ""
			if t.Columns > 0 {
				size = fmt.Sprintf(" (%d × %d)", t.Rows, t.Columns)
			}
			fmt.Fprintf(b, "- p. %d — %s%s\n", t.Page, mdText(caption), size)
		}
		b.WriteString("\n")
	}
	if len(g.Figures) > 0 {
		b.WriteString("## Figures\n\n")
		for _, f := range g.Figures {
			fmt.Fprintf(b, "- p. %d — %s\n", f.Page, mdText(f.Caption))
		}
		b.WriteString("\n")
	}
	if len(g.KeyFigures) > 0 {
		b.WriteString("## Key figures\n\n")
		for _, k := range g.KeyFigures {
			fmt.Fprintf(b, "- **%s** — %s [p. %d]\n", mdText(k.Figure), mdText(k.Text), k.Page)
		}
		b.WriteString("\n")
	}
	if g.Cut > 0 {
		fmt.Fprintf(b, "_%d more items left out._\n", g.Cut)
	}
}

// mark is a claim's grounding for people: ✓ found on the cited page, ✗ the page says otherwise, ~ elsewhere in
// the document, ? not found.
func mark(c Claim) string {
	switch c.Status {
	case agent.GroundRegion, agent.GroundCitedPage, agent.GroundComputed:
		return "✓ " + mdText(c.Text)
	case agent.GroundMismatch:
		return "✗ " + mdText(c.Note)
	case agent.GroundElsewhere:
		return "~ " + mdText(c.Text+": "+c.Note)
	}
	return "? " + mdText(c.Text+": "+c.Note)
}

func (st Statement) markdown(b *strings.Builder) {
	b.WriteString("- " + mdText(st.Text))
	for _, p := range st.Pages {
		fmt.Fprintf(b, " [p. %d]", p)
	}
	var marks []string
	for _, c := range st.Claims {
		if c.Kind != "quote" && c.Kind != "name" {
			marks = append(marks, mark(c))
		}
	}
	if len(marks) > 0 {
		b.WriteString(" — " + strings.Join(marks, "; "))
	}
	b.WriteString("\n")
}

// Markdown is s as a Markdown page: the summary's sentences and key figures with their pages and each figure's
// grounding mark, then the outline.
func (s Summary) Markdown() string {
	var b strings.Builder
	s.Outline.heading(&b)
	if len(s.Sentences) > 0 || len(s.KeyFigures) > 0 {
		fmt.Fprintf(&b, "## Summary\n\n_by %s, %s; %d of %d figures found on the pages cited", mdText(s.Model),
			s.Created.Format("2006-01-02 15:04"), s.Grounded, s.Figures)
		if s.Mismatched > 0 {
			fmt.Fprintf(&b, ", %d differ from them", s.Mismatched)
		}
		b.WriteString("_\n\n")
		for _, st := range s.Sentences {
			st.markdown(&b)
		}
		b.WriteString("\n")
		if len(s.KeyFigures) > 0 {
			b.WriteString("### The model's key figures\n\n")
			for _, st := range s.KeyFigures {
				st.markdown(&b)
			}
			b.WriteString("\n")
		}
	}
	s.Outline.body(&b)
	return b.String()
}
