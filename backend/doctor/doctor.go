// Package doctor checks a Proofglass installation: the knowledge base, the blob store and the tools Proofglass shells out to,
// and says exactly what is wrong and how to fix it.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"proofglass/backend/buildinfo"
	"proofglass/backend/config"
	"proofglass/backend/kb"
	"proofglass/backend/pagecache"
	"proofglass/backend/pdf"
)

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // what to do when not OK
	// Optional marks a check whose failure is worth showing but does not make the installation unhealthy
	// (an endpoint profile that is not in use).
	Optional bool `json:"optional,omitempty"`
}

// Options select what to check and whether to repair.
type Options struct {
	Fix bool // remove orphan blobs, rebuild full-text indexes
	// Endpoints, when set, tests model endpoints; the model layer provides it so this package needs no network code.
	Endpoints func(ctx context.Context, cfg *config.Config) []Check
}

// orphanGrace keeps blobs an ingest may have just written from being reported (or removed) as orphans.
const orphanGrace = time.Hour

// Run performs every check.
func Run(ctx context.Context, cfg *config.Config, opt Options) []Check {
	var out []Check
	out = append(out, Store(ctx, cfg, opt.Fix)...)
	out = append(out, Tools(ctx, cfg.Settings.Ingest.OCRLanguages)...)
	out = append(out, pdfWorker())
	out = append(out, StoredKeys(cfg)...)
	if opt.Endpoints != nil {
		out = append(out, opt.Endpoints(ctx, cfg)...)
	}
	return out
}

// Store checks the database and the blob store.
func Store(ctx context.Context, cfg *config.Config, fix bool) []Check {
	k, err := kb.Open(ctx, cfg.DBPath(), cfg.BlobDir())
	if err != nil {
		return []Check{{Name: "database", Detail: err.Error(),
			Fix: "move " + cfg.DBPath() + " aside and run Proofglass again to start a fresh knowledge base, then re-add your documents"}}
	}
	defer k.Close()
	var out []Check
	problems, err := k.Integrity(ctx)
	switch {
	case err != nil:
		out = append(out, Check{Name: "database", Detail: err.Error(), Fix: "check the file system holding " + cfg.DBPath()})
	case len(problems) > 0 && fix:
		ferr := k.RebuildFTS(ctx)
		again, _ := k.Integrity(ctx)
		c := Check{Name: "database", OK: ferr == nil && len(again) == 0,
			Detail: fmt.Sprintf("%d problem(s) found; full-text indexes rebuilt", len(problems))}
		if !c.OK {
			c.Detail += ": still " + strings.Join(again, "; ")
			c.Fix = "restore " + cfg.DBPath() + " from a backup, or move it aside and re-add your documents"
		}
		out = append(out, c)
	case len(problems) > 0:
		out = append(out, Check{Name: "database", Detail: strings.Join(problems, "; "),
			Fix: "run `proofglass doctor --fix` to rebuild the full-text indexes; if problems remain, restore from a backup"})
	default:
		v, _ := k.SchemaVersionOf(ctx)
		out = append(out, Check{Name: "database", OK: true, Detail: fmt.Sprintf("%s: integrity ok, schema v%d", cfg.DBPath(), v)})
	}

	out = append(out, pendingDeletions(ctx, k, fix))
	r, err := k.CheckBlobs(ctx, orphanGrace)
	if err != nil {
		return append(out, Check{Name: "blobs", Detail: err.Error(), Fix: "check permissions of " + cfg.BlobDir()})
	}
	missing := Check{Name: "blobs missing", OK: len(r.Missing) == 0, Detail: fmt.Sprintf("%d stored, %d referenced but missing", r.Stored, len(r.Missing))}
	if !missing.OK {
		missing.Detail += " (e.g. " + r.Missing[0] + ")"
		missing.Fix = "delete and re-add the affected documents (`proofglass documents list` shows them failing to open)"
	}
	orphans := Check{Name: "blobs orphaned", OK: len(r.Orphans) == 0, Detail: fmt.Sprintf("%d unreferenced blob(s) older than %s", len(r.Orphans), orphanGrace)}
	if !orphans.OK {
		if fix {
			n, err := k.RemoveOrphans(ctx, r.Orphans)
			orphans.OK = err == nil
			orphans.Detail = fmt.Sprintf("removed %d orphan blob(s)", n)
			if err != nil {
				orphans.Detail += ": " + err.Error()
			}
		} else {
			orphans.Fix = "run `proofglass doctor --fix` to remove them"
		}
	}
	return append(out, missing, orphans, pageCache(ctx, cfg, k, fix), pageCacheSize(ctx, cfg, k), wordBoxes(ctx, k, fix),
		freeSpace(ctx, k, fix))
}

// pendingDeletions finds deletions that were journalled and not done (a watcher killed while emptying a folder,
// `watch remove` interrupted): documents whose files are gone, and blobs no row refers to any more. The next watcher
// to start finishes them; with fix, so does doctor.
func pendingDeletions(ctx context.Context, k *kb.KB, fix bool) Check {
	c := Check{Name: "deletions pending"}
	docs, err := k.Docs.PendingDeletions(ctx)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	blobs, err := k.Docs.PendingBlobDeletions(ctx)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	if len(docs) == 0 && blobs == 0 {
		c.OK, c.Detail = true, "none"
		return c
	}
	c.Detail = fmt.Sprintf("%d document(s) and %d blob(s) left to delete by an interrupted deletion", len(docs), blobs)
	if !fix {
		c.Fix = "run `proofglass doctor --fix` (or start the watcher: `proofglass watch`, the app or `proofglass serve`) to finish them"
		return c
	}
	gone, err := k.Docs.DeleteDocuments(ctx, docs)
	if err == nil {
		_, err = k.Docs.PurgeBlobs(ctx)
	}
	c.OK = err == nil
	c.Detail = fmt.Sprintf("finished: %d document(s) deleted, blob journal swept", len(gone))
	if err != nil {
		c.Detail += ": " + err.Error()
	}
	return c
}

// vacuumShare is the share of the database file that must be free pages before the check suggests giving them
// back: below it, later ingests reuse them soon enough.
const vacuumShare = 0.25

// freeSpace finds a database file mostly made of free pages (left by deleted documents or compacted word boxes)
// and, with fix, gives them back to the disk.
func freeSpace(ctx context.Context, k *kb.KB, fix bool) Check {
	c := Check{Name: "database size", Optional: true}
	size, free, err := k.FreeSpace(ctx)
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	switch {
	case err != nil:
		c.Detail = err.Error()
	case size == 0 || float64(free) < vacuumShare*float64(size):
		c.OK, c.Detail = true, fmt.Sprintf("%.1f MB, of which %.1f MB free pages", mb(size), mb(free))
	case fix:
		before, after, err := k.Vacuum(ctx)
		c.OK = err == nil
		c.Detail = fmt.Sprintf("rewritten without its free pages: %.1f MB → %.1f MB", mb(before), mb(after))
		if err != nil {
			c.Detail = err.Error()
			c.Fix = "close Proofglass's window, `proofglass serve` and `proofglass watch`, then run `proofglass doctor --fix` again"
		}
	default:
		c.Detail = fmt.Sprintf("%.1f MB, of which %.1f MB free pages (deleted documents, compacted word boxes)", mb(size), mb(free))
		c.Fix = "run `proofglass doctor --fix` to give the free pages back to the disk (needs about the file's size in temporary space)"
	}
	return c
}

// wordBoxes finds word boxes stored as JSON by versions before the compact form: they read as before, at about five
// times the size, and --fix rewrites them.
func wordBoxes(ctx context.Context, k *kb.KB, fix bool) Check {
	c := Check{Name: "word boxes", Optional: true}
	n, size, err := k.LegacyWordBoxes(ctx)
	switch {
	case err != nil:
		c.Detail = err.Error()
	case n == 0:
		c.OK, c.Detail = true, "all stored in the compact form"
	case fix:
		done, dropped, before, after, err := k.CompactWordBoxes(ctx)
		c.OK = err == nil
		c.Detail = fmt.Sprintf("rewrote %d page(s) in the compact form: %.1f MB → %.1f MB (the database file keeps its size; "+
			"later ingests reuse the space)", done, float64(before)/(1<<20), float64(after)/(1<<20))
		if dropped > 0 {
			c.Detail += fmt.Sprintf("; %d of them had unreadable boxes, now none (the page reads again; search finds it without boxes)", dropped)
		}
		if err != nil {
			c.Detail += ": " + err.Error()
		}
	default:
		c.Detail = fmt.Sprintf("%d page(s) keep their word boxes as JSON (%.1f MB), written by an earlier version", n, float64(size)/(1<<20))
		c.Fix = "run `proofglass doctor --fix` to rewrite them in the compact form (about a fifth of the size; faster search)"
	}
	return c
}

// pageCache finds page files (cache/pages) whose document is gone, or left in an older layout.
func pageCache(ctx context.Context, cfg *config.Config, k *kb.KB, fix bool) Check {
	c := Check{Name: "page cache"}
	pages := pagecache.New(filepath.Join(cfg.CacheDir(), "pages"), pagecache.Options{})
	live := pagecache.Live{}
	if err := k.Docs.DocumentKeys(ctx, live.Add); err != nil {
		c.Detail = err.Error()
		return c
	}
	stale, err := pages.Scan(live.Has)
	if err != nil {
		c.Detail, c.Fix = err.Error(), "check permissions of "+pages.Root()
		return c
	}
	size, files := pages.Size()
	switch {
	case len(stale) == 0:
		c.OK, c.Detail = true, fmt.Sprintf("%d page file(s), %.1f MB, none stale", files, float64(size)/(1<<20))
	case fix:
		n := pages.Remove(stale)
		c.OK, c.Detail = true, fmt.Sprintf("removed %d stale page file(s) or folder(s) (e.g. %s: %s)", n, stale[0].Path, stale[0].Reason)
	default:
		c.Detail = fmt.Sprintf("%d stale entr(ies) (e.g. %s: %s)", len(stale), stale[0].Path, stale[0].Reason)
		c.Fix = "run `proofglass doctor --fix` to remove them (a running `proofglass serve` also sweeps them every 10 minutes)"
	}
	return c
}

// DefaultPageBytes is the size assumed for a 200-DPI page file before any is measured: issue 31's library held about
// 6,000 pages in 2 GiB.
const DefaultPageBytes = 350 << 10

// pageCacheSize warns when the page cache (cache.pages_mb) cannot hold the page files of every collection `serve`
// serves, estimated from each collection's page count and the bytes per page measured in the cache: then a
// training run keeps re-rendering pages the cache evicted.
func pageCacheSize(ctx context.Context, cfg *config.Config, k *kb.KB) Check {
	c := Check{Name: "page cache size", Optional: true}
	pages := pagecache.New(filepath.Join(cfg.CacheDir(), "pages"), pagecache.Options{MaxBytes: int64(cfg.Settings.Cache.PagesMB) << 20})
	counts, err := k.Search.ReadyUnitCounts(ctx)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	usage := pages.UsageByCollection()
	var all pagecache.Usage
	for _, u := range usage {
		all.Files += u.Files
		all.Bytes += u.Bytes
	}
	perPage := func(coll string) (int64, bool) { // measured in this collection, else in the cache, else assumed
		if u := usage[pagecache.SafeName(coll)]; u.Files >= 10 {
			return u.Bytes / int64(u.Files), true
		}
		if all.Files >= 10 {
			return all.Bytes / int64(all.Files), true
		}
		return DefaultPageBytes, false
	}
	var need int64
	var total int
	measured := true
	var parts []string
	names := slices.Sorted(maps.Keys(counts))
	for _, coll := range names {
		n := counts[coll]
		b, ok := perPage(coll)
		measured = measured && ok
		need += int64(n) * b
		total += n
		parts = append(parts, fmt.Sprintf("%s %d pages × %d KB", coll, n, b>>10))
	}
	basis := "measured"
	if !measured {
		basis = fmt.Sprintf("measured where the cache has pages, else %d KB assumed", DefaultPageBytes>>10)
	}
	capMB := pages.MaxBytes() >> 20
	detail := fmt.Sprintf("%d pages in %d collection(s) need about %d MB rendered (%s; %s); the cap is %d MB",
		total, len(counts), need>>20, strings.Join(parts, ", "), basis, capMB)
	if need <= pages.Holds() {
		c.OK, c.Detail = true, detail
		return c
	}
	c.Detail = detail + ": pages handed out more than cache.pages_lease_minutes ago will be evicted and rendered again"
	c.Fix = fmt.Sprintf("set \"cache\": {\"pages_mb\": %d} in %s (the need plus a quarter), then `proofglass cache warm`",
		pagecache.SizeMBFor(need), filepath.Join(cfg.DataDir, "settings.json"))
	return c
}

// Tools checks the external programs Proofglass runs.
func Tools(ctx context.Context, ocrLangs []string) []Check {
	var out []Check
	for _, t := range []struct{ bin, versionArg, why string }{
		{"ffmpeg", "-version", "video keyframes and clips"},
		{"ffprobe", "-version", "video duration and streams"},
		{"tesseract", "--version", "OCR of scanned pages, images and keyframes"},
	} {
		c := Check{Name: t.bin}
		path, err := exec.LookPath(t.bin)
		if err != nil {
			c.Detail = t.bin + " not found on PATH (needed for " + t.why + ")"
			c.Fix = installFix(t.bin)
			out = append(out, c)
			continue
		}
		v, err := firstLine(ctx, path, t.versionArg)
		if err != nil {
			c.Detail = path + " does not run: " + err.Error()
			c.Fix = reinstallFix(t.bin)
		} else {
			c.OK, c.Detail = true, path+": "+v
		}
		out = append(out, c)
	}
	if _, err := exec.LookPath("tesseract"); err == nil && len(ocrLangs) > 0 {
		out = append(out, tesseractLangs(ctx, ocrLangs))
	}
	return out
}

func tesseractLangs(ctx context.Context, want []string) Check {
	c := Check{Name: "tesseract languages"}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, "tesseract", "--list-langs").CombinedOutput()
	if err != nil {
		c.Detail = "tesseract --list-langs failed: " + err.Error()
		return c
	}
	var have []string
	for _, l := range strings.Split(string(b), "\n")[1:] {
		if l = strings.TrimSpace(l); l != "" {
			have = append(have, l)
		}
	}
	var missing []string
	for _, l := range want {
		if !slices.Contains(have, l) {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		c.Detail = "missing OCR language(s): " + strings.Join(missing, ", ") + " (have " + strings.Join(have, ", ") + ")"
		var pkgs []string
		for _, l := range missing {
			pkgs = append(pkgs, "tesseract-ocr-"+strings.ReplaceAll(l, "_", "-"))
		}
		c.Fix = "sudo apt-get install " + strings.Join(pkgs, " ") + ", or change the OCR languages in settings"
		return c
	}
	c.OK, c.Detail = true, "have "+strings.Join(want, ", ")
	return c
}

func aptPackage(bin string) string {
	switch bin {
	case "ffprobe":
		return "ffmpeg"
	case "tesseract":
		return "tesseract-ocr"
	}
	return bin
}

func firstLine(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if line == "" {
		return "", errors.New("no version output")
	}
	return line, nil
}

// Healthy reports whether every check passed.
func Healthy(checks []Check) bool {
	for _, c := range checks {
		if !c.OK && !c.Optional {
			return false
		}
	}
	return true
}

// pdfWorker says which executable serves as the MuPDF worker: the companion of this build, or this binary itself,
// which for the desktop binary means loading GTK and WebKit at every worker start.
func pdfWorker() Check {
	c := Check{Name: "pdf worker", Optional: true}
	switch p := pdf.Companion(); {
	case p != "":
		c.OK, c.Detail = true, fmt.Sprintf("%s (%s)", p, pdf.CompanionVersion())
	case buildinfo.Get().Desktop:
		c.Detail = "this binary, re-executed: each worker start loads GTK and WebKit first (≈ 0.2 s of CPU)"
		c.Fix = "install " + pdf.CompanionName + " of the same build beside it (`make worker`) or in ../lib/proofglass"
	default:
		c.OK, c.Detail = true, "this binary, re-executed (it starts quickly: no window libraries)"
	}
	return c
}

// StoredKeys names each profile whose stored API key was saved for another server than the one the profile points at
// now (the settings were edited, or an environment variable re-points it): Proofglass does not send the key there.
func StoredKeys(cfg *config.Config) []Check {
	var out []Check
	for _, p := range cfg.Current().Providers {
		if p.Kind == config.KindBuiltin || cfg.Secrets == nil {
			continue
		}
		if key, err := cfg.Secrets.Get(config.SecretKey(p.Name)); err != nil || key == "" {
			continue
		}
		origin, ok := cfg.KeyOrigin(p)
		if ok {
			continue
		}
		where := "the server it was saved for"
		if origin != "" {
			where = origin
		}
		out = append(out, Check{Name: "api key of " + p.Name, Detail: fmt.Sprintf(
			"the stored key was saved for %s, but the profile now points at %s: it is not sent there", where, p.BaseURL),
			Fix: fmt.Sprintf("enter the key of %s again in Settings → Providers (it is then saved for this server), or point the profile back", p.Name)})
	}
	return out
}
