package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"proofglass/backend/facets"
	"proofglass/backend/kb"
	"proofglass/backend/termsafe"
)

func docFacetsCmd(g *Globals) *cobra.Command {
	var (
		set, reset []string
		refresh    bool
		all        bool
		asJSON     bool
		values     bool
		collection string
	)
	cmd := &cobra.Command{
		Use:   "facets [DOC]",
		Short: "Show or edit a document's facets (title, org, kind, year, quarter, date), or extract them again",
		Long: "Show a document's facets, as extracted at ingest from its metadata, first pages, running headers and " +
			"file name, or as you set them. --set org=Acme sets one (your value wins over extraction and survives " +
			"re-ingest; --set org= clears it); --reset org goes back to the extracted value. --refresh extracts the " +
			"facets again: of DOC, or of every document that has none (a library made before facets). --values lists the " +
			"kinds, years and organisations of a collection's documents with how many have each.\n\nFilter by " +
			"facets with --where on search and ask: " + facets.WhereSyntax,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.WithKB(cmd, func(ctx context.Context, k *kb.KB) error {
				w := cmd.OutOrStdout()
				if values {
					if len(args) > 0 {
						return fmt.Errorf("--values lists a collection's facets: give --collection, not a document")
					}
					c, err := k.Docs.CollectionByName(ctx, collection)
					if err != nil {
						return fmt.Errorf("collection %q: %w", collection, err)
					}
					groups, err := facets.Browse(ctx, k, c.ID)
					if err != nil {
						return err
					}
					return printFacetValues(w, groups, asJSON)
				}
				if len(args) == 0 {
					if !refresh {
						return fmt.Errorf("give a document id, or --refresh for every document without facets")
					}
					n, err := facets.RefreshMissing(ctx, k, all)
					if err != nil {
						return err
					}
					fmt.Fprintf(w, "extracted the facets of %d documents\n", n)
					return nil
				}
				ids, err := parseIDs(args)
				if err != nil {
					return err
				}
				id := ids[0]
				if refresh {
					if _, err := facets.Refresh(ctx, k, id); err != nil {
						return err
					}
				}
				for _, kv := range set {
					name, value, ok := strings.Cut(kv, "=")
					if !ok {
						return fmt.Errorf("--set %q: want facet=value (facets: %s)", kv, strings.Join(facets.Names, ", "))
					}
					if err := facets.SetUser(ctx, k, id, strings.TrimSpace(name), value); err != nil {
						return err
					}
				}
				for _, name := range reset {
					if err := facets.Reset(ctx, k, id, strings.TrimSpace(name)); err != nil {
						return err
					}
				}
				f, user, err := facets.Of(ctx, k, id)
				if err != nil {
					return err
				}
				if _, err := k.Docs.Document(ctx, id); err != nil {
					return err
				}
				if asJSON {
					return writeJSONLine(w, struct {
						DocumentID int64           `json:"document_id"`
						Facets     facets.Facets   `json:"facets"`
						User       map[string]bool `json:"user,omitempty"`
					}{id, f, user})
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "FACET\tVALUE\tSOURCE")
				for _, n := range facets.Names {
					src := "extracted"
					if user[n] {
						src = "you"
					}
					v := f.Get(n)
					if v == "" {
						v, src = "-", ""
						if user[n] {
							src = "you (cleared)"
						}
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\n", n, termsafe.Line(v), src) // values come from the file: its metadata, its pages
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().StringArrayVar(&set, "set", nil, "set a facet: name=value (repeat for several; name= clears it)")
	cmd.Flags().StringArrayVar(&reset, "reset", nil, "forget your value of a facet, so the extracted one shows")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "extract the facets again (of DOC, else of every document without them)")
	cmd.Flags().BoolVar(&all, "all", false, "with --refresh and no DOC: every ready document, not only those without facets")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the facets as one JSON object (--values: one line per value)")
	cmd.Flags().BoolVar(&values, "values", false, "list the kinds, years and organisations of a collection's documents, with counts")
	cmd.Flags().StringVar(&collection, "collection", kb.DefaultCollection, "with --values: the collection")
	return cmd
}

// printFacetValues prints a collection's facet values, each with how many documents have it.
func printFacetValues(w io.Writer, groups []facets.Group, asJSON bool) error {
	if asJSON {
		for _, g := range groups {
			for _, v := range g.Values {
				if err := writeJSONLine(w, struct {
					Facet     string  `json:"facet"`
					Value     string  `json:"value"`
					Documents []int64 `json:"documents"`
				}{g.Name, v.Value, v.Documents}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if len(groups) == 0 {
		fmt.Fprintln(w, "no facets: the collection has no ready document with a kind, year or organisation")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FACET\tVALUE\tDOCUMENTS")
	for _, g := range groups {
		for _, v := range g.Values {
			fmt.Fprintf(tw, "%s\t%s\t%d\n", g.Name, termsafe.Line(v.Value), len(v.Documents))
		}
	}
	return tw.Flush()
}
