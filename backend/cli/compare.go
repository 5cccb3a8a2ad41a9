package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"proofglass/backend/agent"
	"proofglass/backend/atomicfile"
	"proofglass/backend/compare"
	"proofglass/backend/facets"
	"proofglass/backend/library"
	"proofglass/backend/termsafe"
)

func init() {
	register("compare", func(g *Globals) *cobra.Command {
		var (
			items, docs, wheres               []string
			mode, collection, prov, modelName string
			format, out                       string
			parallel                          int
			quiet                             bool
			rf                                runFlags
		)
		cmd := &cobra.Command{
			Use:   "compare --item TEXT [--item TEXT …] (--doc DOC … | --where FILTER …)",
			Short: "Ask the same items of several documents or filters and print the answers side by side",
			Long: "Ask every --item of every target (--doc: a document by id or file name; --where: the documents a facet " +
				"filter passes), one agent run scoped to the target per cell, --parallel at once. The table has a row per " +
				"item and a column per target: each cell's answer, its sources (document, page, region) and its grounding " +
				"mark. A cell whose run fails shows its error and the others go on; Ctrl-C stops the runs. Progress goes to " +
				"standard error. Formats: table (for reading), csv, xlsx (needs --out), md, json.",
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				format = strings.ToLower(format)
				if format != "table" && !slices.Contains(compare.Formats, format) {
					return fmt.Errorf("--format %q: want table, %s", format, strings.Join(compare.Formats, ", "))
				}
				if format == "xlsx" && out == "" {
					return errors.New("--format xlsx writes a workbook: name the file with --out")
				}
				if mode != "" && !slices.Contains(agent.Modes, agent.Mode(mode)) {
					return fmt.Errorf("unknown --mode %q (want vrag, vimrag, vanilla or react)", mode)
				}
				var targets []compare.Target
				for _, d := range docs {
					targets = append(targets, compare.Target{Doc: d})
				}
				for _, w := range wheres {
					targets = append(targets, compare.Target{Where: w})
				}
				req := compare.Request{Items: items, Targets: targets, Collection: collection, Mode: mode, Parallel: parallel,
					Options: library.RunOptions{Provider: prov, Model: modelName}}
				rf.apply(cmd.Flags(), &req.Options)
				if err := compare.Check(req); err != nil {
					return err
				}
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return g.WithLibrary(cmd, func(_ context.Context, lib *library.Library) error {
					errw := cmd.ErrOrStderr()
					total, ended := len(items)*len(targets), 0
					if !quiet {
						req.Progress = func(ev compare.Event) {
							if ev.Cell == nil {
								return
							}
							ended++
							line := fmt.Sprintf("[%d/%d] item %d × target %d: %s", ended, total, ev.Item+1, ev.Column+1, ev.State)
							if ev.Cell.Error != "" {
								line += ": " + ev.Cell.Error
							} else if ev.State == compare.StateDone {
								line += fmt.Sprintf(" (%d model calls, %s)", ev.Cell.Turns, ev.Cell.Mark)
							}
							fmt.Fprintln(errw, termsafe.Line(line))
						}
					}
					t, err := compare.Compare(ctx, lib, req)
					if err != nil && len(t.Cells) == 0 {
						return err
					}
					if werr := writeComparison(cmd.OutOrStdout(), errw, t, format, out); werr != nil {
						return werr
					}
					return err
				})
			},
		}
		f := cmd.Flags()
		f.StringArrayVar(&items, "item", nil, "what to ask of every target (repeat for several rows)")
		f.StringArrayVar(&docs, "doc", nil, "a document to compare, by id or file name (repeat for several columns)")
		f.StringArrayVar(&wheres, "where", nil, "the documents a facet filter passes, as one column: "+facets.WhereSyntax)
		f.StringVar(&collection, "collection", "", "look only in this collection")
		f.StringVar(&mode, "mode", "", "agent: vrag, vimrag, vanilla or react (default from settings)")
		f.StringVar(&prov, "provider", "", "provider profile or kind (default from settings)")
		f.StringVar(&modelName, "model", "", "chat model (default: the profile's chat_model)")
		f.IntVar(&parallel, "parallel", compare.DefaultParallel, fmt.Sprintf("runs at once, 1 to %d", compare.MaxParallel))
		f.StringVar(&format, "format", "table", "table, csv, xlsx, md or json")
		f.StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
		f.BoolVarP(&quiet, "quiet", "q", false, "print no progress")
		rf.register(f)
		return cmd
	})
}

// writeComparison prints t (format table, md) or writes it to out (any format; xlsx only there).
func writeComparison(w, errw io.Writer, t compare.Table, format, out string) error {
	var b bytes.Buffer
	if format == "table" {
		printComparison(&b, t)
	} else if err := compare.Write(&b, t, format); err != nil {
		return err
	}
	if out != "" {
		if err := atomicfile.Write(out, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
		fmt.Fprintf(errw, "wrote %d items × %d targets to %s\n", len(t.Items), len(t.Columns), termsafe.Line(out))
		return nil
	}
	switch format {
	case "table", "md":
		_, err := fmt.Fprint(w, termsafe.Text(b.String()))
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// printComparison is the table for reading: one block per item, one line per target with its mark and answer, its
// sources under it.
func printComparison(w io.Writer, t compare.Table) {
	width := 0
	for _, c := range t.Columns {
		width = max(width, len([]rune(c.Label)))
	}
	for i, item := range t.Items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%d. %s\n", i+1, oneLine(item))
		for j, col := range t.Columns {
			c := t.Cells[i][j]
			fmt.Fprintf(w, "   %-*s  [%s]  %s\n", width, col.Label, c.Mark, oneLine(compare.CellText(c)))
			if src := compare.Sources(c.Citations); src != "" {
				fmt.Fprintf(w, "   %-*s  sources: %s\n", width, "", oneLine(src))
			}
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
