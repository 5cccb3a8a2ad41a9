package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"proofglass/backend/atomicfile"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/tables"
	"proofglass/backend/termsafe"
)

func init() {
	registerGroup(cobra.Command{Use: "tables", Short: "List the tables found on a document's pages and export them as data"},
		tablesListCmd, tablesExportCmd)
}

// tableSummary is one line of `tables list --json`.
type tableSummary struct {
	DocumentID int64      `json:"document_id"`
	Document   string     `json:"document"`
	Page       int        `json:"page"`
	Index      int        `json:"index"`
	Rows       int        `json:"rows"` // body rows
	Columns    int        `json:"columns"`
	Caption    string     `json:"caption,omitempty"`
	Headers    []string   `json:"column_headers"`
	Box        tables.Box `json:"box"`
}

func tablesListCmd(g *Globals) *cobra.Command {
	var page int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list DOC",
		Short: "List the tables of a document (by id or file name), or of one page of it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if page < 0 {
				return fmt.Errorf("--page %d: pages are numbered from 1", page)
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				d, err := lib.ResolveDocument(ctx, args[0])
				if err != nil {
					return err
				}
				ts, err := lib.Tables(ctx, d.ID, page)
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				if asJSON {
					for _, t := range ts {
						s := tableSummary{DocumentID: d.ID, Document: d.Name, Page: t.Page, Index: t.Index,
							Rows: len(t.Body()), Columns: t.Columns, Caption: t.Caption, Headers: t.ColumnHeaders(), Box: t.Box}
						if err := writeJSONLine(w, s); err != nil {
							return err
						}
					}
					return nil
				}
				if len(ts) == 0 {
					where := "its pages"
					if page > 0 {
						where = fmt.Sprintf("page %d", page)
					}
					fmt.Fprintf(w, "no tables found on %s of %s (document %d)\n", where, termsafe.Line(d.Name), d.ID)
					return nil
				}
				if line := sheetsLine(ctx, lib, d); line != "" {
					defer fmt.Fprintln(w, termsafe.Line(line))
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "PAGE\tTABLE\tSIZE\tCAPTION\tHEADERS")
				for _, t := range ts {
					fmt.Fprintf(tw, "%d\t%d\t%d×%d\t%s\t%s\n", t.Page, t.Index, len(t.Body()), t.Columns,
						termsafe.Line(clip(t.Caption, 60)), termsafe.Line(clip(firstHeaders(t), 60)))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().IntVar(&page, "page", 0, "list the tables of this page only (from 1)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per table")
	return cmd
}

// firstHeaders are a table's first few distinct column headers, comma-separated.
func firstHeaders(t tables.Table) string {
	var out []string
	for _, h := range t.ColumnHeaders() {
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
		if len(out) == 4 {
			break
		}
	}
	return strings.Join(out, ", ")
}

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func tablesExportCmd(g *Globals) *cobra.Command {
	var page, index int
	var format, out, sheet string
	cmd := &cobra.Command{
		Use:   "export DOC (--page N | --sheet NAME)",
		Short: "Write a table of a document's page, or a spreadsheet's sheet, as CSV, XLSX, JSON or Markdown",
		Long: "Write table K (from 1, top to bottom; default 1) of page N of a document (by id or file name), or a whole " +
			"sheet of a spreadsheet (Excel, OpenDocument, CSV, TSV) with --sheet. A spreadsheet's tables are its own cells, " +
			"not what was read off its pages. Text formats go to standard output unless --out names a file; xlsx needs --out.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bySheet := cmd.Flags().Changed("sheet")
			if cmd.Flags().Changed("page") == bySheet {
				return errors.New("name either --page (the page whose table to export; tables list DOC shows them) or --sheet")
			}
			format = strings.ToLower(format)
			if !slices.Contains(tables.Formats, format) {
				return fmt.Errorf("--format %q: want one of %s", format, strings.Join(tables.Formats, ", "))
			}
			if format == "xlsx" && out == "" {
				return errors.New("--format xlsx writes a workbook: name the file with --out")
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				d, err := lib.ResolveDocument(ctx, args[0])
				if err != nil {
					return err
				}
				var t tables.Table
				if bySheet {
					t, err = sheetTable(ctx, lib, d, sheet)
				} else {
					t, err = lib.Table(ctx, d.ID, page, index)
				}
				if err != nil {
					return err
				}
				var b bytes.Buffer
				if err := tables.Write(&b, t, format); err != nil {
					return err
				}
				if out == "" {
					if format == "md" {
						_, err = fmt.Fprint(cmd.OutOrStdout(), termsafe.Text(b.String()))
						return err
					}
					_, err = cmd.OutOrStdout().Write(b.Bytes())
					return err
				}
				if err := atomicfile.Write(out, b.Bytes(), 0o644); err != nil {
					return fmt.Errorf("write %s: %w", out, err)
				}
				what := fmt.Sprintf("page %d table %d", t.Page, t.Index)
				if bySheet {
					what = fmt.Sprintf("sheet %q", sheet)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s of %s (%d×%d) to %s\n", termsafe.Line(what),
					termsafe.Line(d.Name), len(t.Body()), t.Columns, termsafe.Line(out))
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&page, "page", 0, "the page (from 1)")
	cmd.Flags().IntVar(&index, "table", 1, "the table of the page, from 1, top to bottom")
	cmd.Flags().StringVar(&sheet, "sheet", "", "a spreadsheet's sheet, whole, by name (tables list DOC names them)")
	cmd.Flags().StringVar(&format, "format", "csv", "csv, xlsx, json or md")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	return cmd
}

// sheetTable is sheet name of a spreadsheet document as one table (the only sheet of a CSV or TSV file, whatever
// the name).
func sheetTable(ctx context.Context, lib *library.Library, d kb.Document, name string) (tables.Table, error) {
	sheets, err := lib.Sheets(ctx, d.ID)
	if err != nil {
		return tables.Table{}, err
	}
	var names []string
	for _, s := range sheets {
		if s.Name == name || len(sheets) == 1 && s.Name == "" {
			return tables.SheetTable(d.ID, s), nil
		}
		names = append(names, fmt.Sprintf("%q", s.Name))
	}
	return tables.Table{}, fmt.Errorf("%s has no sheet %q; its sheets: %s", termsafe.Line(d.Name), termsafe.Line(name),
		termsafe.Line(strings.Join(names, ", ")))
}

// sheetsLine names a spreadsheet's sheets and their sizes, for tables list ("" for another document).
func sheetsLine(ctx context.Context, lib *library.Library, d kb.Document) string {
	sheets, err := lib.Sheets(ctx, d.ID)
	if err != nil {
		return ""
	}
	var parts []string
	for _, s := range sheets {
		t := tables.SheetTable(d.ID, s)
		parts = append(parts, fmt.Sprintf("%q %d×%d", s.Name, len(t.Body()), t.Columns))
	}
	return "sheets: " + strings.Join(parts, ", ") + " (export one whole with --sheet NAME)"
}
