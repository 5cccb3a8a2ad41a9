package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"proofglass/backend/library"
	"proofglass/backend/pagecache"
	"proofglass/backend/pagefile"
	"proofglass/backend/server"
)

func init() {
	register("serve", func(g *Globals) *cobra.Command {
		var addr string
		var noToken, noWatch, prerender, groupReadable bool
		var corpusDir string
		var prerenderOnly []string
		tok := secretFlag{name: "token", env: "PROOFGLASS_SERVER_TOKEN"}
		cmd := &cobra.Command{
			Use:   "serve",
			Short: "Serve the knowledge base over HTTP: VRAG's search API, questions as server-sent events, page images",
			Long: `Serve the knowledge base over HTTP on 127.0.0.1:8002 (VRAG's search engine port) by default.

Every request but GET /healthz needs "Authorization: Bearer TOKEN". The token is kept in the secret store and made
on first use; print it with "proofglass serve token". --token-stdin, --ask-token or PROOFGLASS_SERVER_TOKEN set one
explicitly (--token T works too, but other local users can read it in the process list); a token needs at least
16 characters (the stored one has 32 random hex digits). --no-token is
allowed on a loopback address only, for VRAG's own scripts, which send no header; then only loopback Host names
(localhost, 127.0.0.1, [::1], 0.0.0.0) are served and cross-origin browser requests are refused.

  POST /search  {"queries":[...],"top_k":3,"vrag_ret":false,"search_corpus":"…"} VRAG's newer API
  GET  /search?queries=…&queries=…                                          VRAG's first API
  POST /v1/ask  {"question":"…","mode":"vrag","provider":"…","model":"…"}     events as text/event-stream
  GET  /v1/units/ID/image?region=x0,y0,x1,y1&max_pixels=N                   a page or region as JPEG
  GET  /v1/blobs/SHA256                                                      thumbnails, crops, originals
  GET  /v1/runs/ID/events                                                    a stored run's events
  /mcp                                                                       the MCP server (streamable HTTP)

Watched folders (proofglass watch add) are kept in sync while it serves, unless --no-watch.

Page files: a file handed out stays at least cache.pages_lease_minutes (30) whatever cache.pages_mb, because VRAG-RL
opens the previous turn's page again to crop it. --prerender renders every collection's pages into the cache in the
background (as "proofglass cache warm" does); --prerender-collection C (repeatable) renders only the named ones. --corpus-dir DIR answers with paths inside DIR/img, VRAG's own layout
(see "proofglass export corpus"), so scripts that compare paths with ./search_engine/corpus/img/… match: give
--corpus-dir ./search_engine/corpus and run the script from VRAG's checkout. Page files are readable by this user
only (0600) unless --group-readable or cache.pages_group_readable: run the trainer as the same user, or in its group.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx := cmd.Context()
				token, err := tok.read(cmd)
				if err != nil {
					return err
				}
				given := token != "" // by flag, stdin or PROOFGLASS_SERVER_TOKEN: not the stored one
				if given {
					if err := server.CheckToken(token); err != nil {
						return fmt.Errorf("serve: %w", err)
					}
				}
				lib, err := library.Open(ctx, g.DataDir)
				if err != nil {
					return err
				}
				defer lib.Close()
				lib.Searcher.UseLexicalIndex() // a long-lived process: full-text search from memory
				for _, c := range prerenderOnly {
					if _, err := lib.KB.Docs.CollectionByName(ctx, c); err != nil {
						return fmt.Errorf("--prerender-collection %q: %w", c, err)
					}
				}
				if token == "" && !noToken {
					if token, err = server.Token(lib.Config); err != nil {
						return fmt.Errorf("server token: %w", err)
					}
				}
				if groupReadable && !lib.Config.Settings.Cache.PagesGroupReadable {
					lib.Config.Settings.Cache.PagesGroupReadable = true
					lib.Pages = pagecache.New(library.PagesDir(lib.Config), library.PageCacheOptions(lib.Config))
				}
				opts := server.Options{Token: token, Addr: addr, Log: slog.Default()}
				if corpusDir != "" {
					if opts.Corpus, err = pagefile.OpenCorpus(corpusDir, lib.Config.Settings.Cache.PagesGroupReadable); err != nil {
						return err
					}
					if !filepath.IsAbs(corpusDir) {
						// VRAG's scripts compare the paths as written, so they stay relative: say relative to what.
						if wd, err := os.Getwd(); err == nil {
							fmt.Fprintf(cmd.ErrOrStderr(), "--corpus-dir %s: page paths are relative to %s; run the client from there\n", corpusDir, wd)
						}
					}
				}
				s, err := server.New(lib, opts)
				if err != nil {
					return err
				}
				defer s.Close()
				defer serveExtras(ctx, lib, s, noWatch)()
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return fmt.Errorf("listen on %s: %w", addr, err)
				}
				hs := s.HTTPServer()
				go s.SweepEvery(ctx, 10*time.Minute)
				if prerender || len(prerenderOnly) > 0 {
					go func() {
						rep, err := s.Prerender(ctx, prerenderOnly)
						switch {
						case err != nil && ctx.Err() == nil:
							slog.Warn("prerender", "err", err)
						case rep.Full:
							slog.Warn("prerender stopped: the page cache cannot hold every page", "need_mb", rep.NeedBytes>>20,
								"pages_mb", lib.Pages.MaxBytes()>>20, "fix", "raise cache.pages_mb in settings.json")
						case err == nil:
							slog.Info("prerender done", "progress", rep.Progress.String())
						}
					}()
				}
				go func() {
					<-ctx.Done()
					sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
					defer cancel()
					hs.Shutdown(sctx)
				}()
				auth := "no token (loopback only)"
				switch {
				case given:
					auth = "the bearer token you gave (fingerprint " + server.Fingerprint(token) + ")"
				case token != "":
					auth = "bearer token fingerprint " + server.Fingerprint(token) + " (print the token with `proofglass serve token`)"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "proofglass: serving %s on http://%s, %s\n", lib.Config.DataDir, ln.Addr(), auth)
				if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				return nil
			},
		}
		cmd.Flags().StringVar(&addr, "addr", server.DefaultAddr, "address to listen on")
		addSecretFlags(cmd, &tok, "bearer token (default: $PROOFGLASS_SERVER_TOKEN, else the stored one)")
		cmd.Flags().BoolVar(&noToken, "no-token", false, "serve without a token (loopback addresses only)")
		cmd.Flags().BoolVar(&noWatch, "no-watch", false, "do not sync watched folders while serving")
		cmd.Flags().BoolVar(&prerender, "prerender", false, "render every collection's pages into the page cache in the background")
		cmd.Flags().StringArrayVar(&prerenderOnly, "prerender-collection", nil, "prerender only this collection's pages (repeatable)")
		cmd.Flags().StringVar(&corpusDir, "corpus-dir", "", "answer with paths inside DIR/img, VRAG's corpus layout (see `proofglass export corpus`)")
		cmd.Flags().BoolVar(&groupReadable, "group-readable", false, "page files 0640, folders 0750 (default 0600/0700)")
		cmd.AddCommand(&cobra.Command{
			Use:   "token",
			Short: "Print the server's bearer token (creating it on first use)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := g.Config()
				if err != nil {
					return err
				}
				t, err := server.Token(cfg)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), t)
				return err
			},
		})
		return cmd
	})
}
