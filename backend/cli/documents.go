package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"proofglass/backend/ingest"
	"proofglass/backend/kb"
	"proofglass/backend/library"
	"proofglass/backend/termsafe"
)

func init() {
	registerGroup(cobra.Command{Use: "documents", Aliases: []string{"docs"}, Short: "List, show, summarise, delete and retry documents"},
		docListCmd, docShowCmd, docDeleteCmd, docRetryCmd, docFacetsCmd, docSummaryCmd)
}

func parseIDs(args []string) ([]int64, error) {
	ids := make([]int64, 0, len(args))
	for _, a := range args {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("%q is not a document id", a)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func docListCmd(g *Globals) *cobra.Command {
	var collection, status string
	var names map[int64]string // collection names by id, loaded with the documents
	cmd := listCmd(g, "List documents with their status, size and error", "print one JSON object per document",
		"ID\tSTATUS\tKIND\tSIZE\tCOLLECTION\tNAME\tERROR",
		func(ctx context.Context, k *kb.KB) ([]kb.Document, error) {
			var cid int64
			if collection != "" {
				c, err := k.Docs.CollectionByName(ctx, collection)
				if err != nil {
					return nil, err
				}
				cid = c.ID
			}
			docs, err := k.Docs.Documents(ctx, cid)
			if err != nil {
				return nil, err
			}
			if names, err = collectionNames(ctx, k); err != nil {
				return nil, err
			}
			if status != "" {
				docs = slices.DeleteFunc(docs, func(d kb.Document) bool { return d.Status != status })
			}
			return docs, nil
		},
		func(d kb.Document) string {
			e := d.Error
			if len(e) > 80 {
				e = e[:77] + "..."
			}
			return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s", d.ID, d.Status, d.Kind, size(d), termsafe.Line(names[d.CollectionID]),
				termsafe.Line(d.Name), termsafe.Line(e))
		})
	cmd.Flags().StringVar(&collection, "collection", "", "only this collection")
	cmd.Flags().StringVar(&status, "status", "", "only documents with this status (queued, ingesting, ready, failed)")
	return cmd
}

func collectionNames(ctx context.Context, k *kb.KB) (map[int64]string, error) {
	cs, err := k.Docs.Collections(ctx)
	if err != nil {
		return nil, err
	}
	m := map[int64]string{}
	for _, c := range cs {
		m[c.ID] = c.Name
	}
	return m, nil
}

// docDetail is `proofglass documents show --json`.
type docDetail struct {
	kb.Document
	Warnings []string       `json:"warnings,omitempty"`
	Units    int            `json:"units"`
	Steps    map[string]int `json:"steps"` // "stage/status" → units
	// Links tie an e-mail to its attachments: the messages it is attached to, then its attachments.
	Links []kb.DocumentLink `json:"links,omitempty"`
}

func docShowCmd(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID...",
		Short: "Show documents: status, size, error, warnings, per-stage progress",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := parseIDs(args)
			if err != nil {
				return err
			}
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				w := cmd.OutOrStdout()
				for _, id := range ids {
					det, err := documentDetail(ctx, k, id)
					if err != nil {
						return err
					}
					if asJSON {
						if err := writeJSONLine(w, det); err != nil {
							return err
						}
						continue
					}
					printDocDetail(w, det)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per document")
	return cmd
}

// documentDetail loads a document with its warnings, unit count and per-stage step counts.
func documentDetail(ctx context.Context, k *kb.KB, id int64) (docDetail, error) {
	d, err := k.Docs.Document(ctx, id)
	if err != nil {
		return docDetail{}, err
	}
	det := docDetail{Document: d, Warnings: ingest.ParseMeta(d.Meta).Warnings, Steps: map[string]int{}}
	if det.Units, err = k.Content.UnitCount(ctx, id); err != nil {
		return docDetail{}, err
	}
	steps, err := k.Content.Steps(ctx, id)
	if err != nil {
		return docDetail{}, err
	}
	for _, s := range steps {
		det.Steps[s.Stage+"/"+s.Status]++
	}
	if det.Links, err = k.Docs.DocumentLinks(ctx, id); err != nil {
		return docDetail{}, err
	}
	return det, nil
}

// printDocDetail prints `proofglass documents show` for one document.
func printDocDetail(w io.Writer, det docDetail) {
	d := det.Document
	fmt.Fprintf(w, "document %d: %s\n  status:  %s\n  kind:    %s (%s)\n  size:    %s, %d units, %d bytes\n  sha256:  %s\n",
		d.ID, termsafe.Line(d.Name), d.Status, d.Kind, termsafe.Line(d.MIME), size(d), det.Units, d.SizeBytes, d.SHA256)
	if d.SourcePath != "" {
		fmt.Fprintf(w, "  source:  %s\n", termsafe.Line(d.SourcePath))
	}
	if d.Error != "" {
		fmt.Fprintf(w, "  error:   %s\n", termsafe.Line(d.Error))
	}
	for _, wn := range det.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", termsafe.Line(wn))
	}
	for _, l := range det.Links {
		if l.ChildID == d.ID {
			fmt.Fprintf(w, "  attached to: document %d, as %s\n", l.ParentID, termsafe.Line(l.Name))
		} else {
			fmt.Fprintf(w, "  attachment:  %s (document %d)\n", termsafe.Line(l.Name), l.ChildID)
		}
	}
	var parts []string
	for _, st := range []string{ingest.StageExtract, ingest.StageOCR, ingest.StageEmbed} {
		for _, status := range []string{kb.StepDone, kb.StepSkipped, kb.StepFailed} {
			if n := det.Steps[st+"/"+status]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %s %d", st, status, n))
			}
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  steps:   %s\n", strings.Join(parts, ", "))
	}
}

func docDeleteCmd(g *Globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "delete ID...",
		Short: "Delete documents with their units, vectors and the stored files no other document uses",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := parseIDs(args)
			if err != nil {
				return err
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				in := lib.Ingester(library.IngestOptions{NoOCR: true, Workers: 1})
				for _, id := range ids {
					if err := in.Delete(ctx, id); err != nil {
						return err
					}
					if asJSON {
						writeJSONLine(cmd.OutOrStdout(), map[string]any{"deleted": id})
					} else {
						fmt.Fprintf(cmd.OutOrStdout(), "deleted document %d\n", id)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per deleted document")
	return cmd
}

func docRetryCmd(g *Globals) *cobra.Command {
	pw := secretFlag{name: "password", env: "PROOFGLASS_PDF_PASSWORD"}
	var asJSON, allFailed, noOCR bool
	cmd := &cobra.Command{
		Use:   "retry [ID...]",
		Short: "Ingest failed or interrupted documents again (from the stored original), e.g. with a PDF password",
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := parseIDs(args)
			if err != nil {
				return err
			}
			password, err := pw.read(cmd)
			if err != nil {
				return err
			}
			return g.WithLibrary(cmd, func(ctx context.Context, lib *library.Library) error {
				k := lib.KB
				if allFailed {
					docs, err := k.Docs.Documents(ctx, 0)
					if err != nil {
						return err
					}
					for _, d := range docs {
						if d.Status == kb.StatusFailed && d.Blob != "" {
							ids = append(ids, d.ID)
						}
					}
				}
				if len(ids) == 0 {
					return fmt.Errorf("no documents to retry: give ids or --failed")
				}
				in := lib.Ingester(library.IngestOptions{NoOCR: noOCR})
				pr := newProgressPrinter(cmd.OutOrStdout(), cmd.ErrOrStderr(), asJSON)
				var res []ingest.Result
				for _, id := range ids {
					r, err := in.Retry(ctx, id, password, pr.event)
					if err != nil {
						r.Error = err.Error()
					}
					res = append(res, r)
				}
				pr.clear()
				return reportResults(cmd.OutOrStdout(), res, asJSON)
			})
		},
	}
	addSecretFlags(cmd, &pw, "password of an encrypted PDF (remembered in the secret store once it opens the file)")
	cmd.Flags().BoolVar(&allFailed, "failed", false, "retry every failed document")
	cmd.Flags().BoolVar(&noOCR, "no-ocr", false, "skip OCR")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print progress events and results as JSON lines")
	return cmd
}
