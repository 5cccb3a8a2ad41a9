// Thin C layer over MuPDF: every call runs inside an exception frame and reports failure as a return code plus a
// message, so no MuPDF exception ever unwinds through Go.
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include "mupdf.h"
#include "mupdf_glue.h"

// The base context of this process. Documents get clones of it, which share its resource store, glyph cache,
// colour management (the ICC links lcms builds on first use: ~25 ms for a CMYK document), fonts and document
// handlers: with a context of their own, every document paid for all of that again. Clones need real locks.
#define LP_LOCKS 8 // more than MuPDF's FZ_LOCK_MAX
static struct {
	pthread_mutex_t init;
	fz_context *ctx;
	pthread_mutex_t locks[LP_LOCKS];
	fz_locks_context lk;
	fz_alloc_context alloc;
	// Allocation accounting, under MuPDF's allocation lock.
	size_t mem_cap, mem_used;
	// single: only one thread ever calls MuPDF (a worker process), so the locks are not taken; MuPDF takes its
	// allocation lock for every allocation and every reference count change.
	int single;
} base = {.init = PTHREAD_MUTEX_INITIALIZER};

static void lp_lock(void *user, int i) {
	if (!base.single) pthread_mutex_lock(&base.locks[i]);
}
static void lp_unlock(void *user, int i) {
	if (!base.single) pthread_mutex_unlock(&base.locks[i]);
}

// A header in front of each block records its size so the allocator can enforce the memory cap: MuPDF then fails
// the one allocation with an exception instead of the process being killed by the OOM killer.
#define LP_HDR 16

static void *lp_malloc(void *user, size_t n) {
	if (base.mem_cap && base.mem_used + n > base.mem_cap) return NULL;
	unsigned char *p = malloc(n + LP_HDR);
	if (!p) return NULL;
	*(size_t *)p = n;
	base.mem_used += n;
	return p + LP_HDR;
}

static void lp_free(void *user, void *ptr) {
	if (!ptr) return;
	unsigned char *p = (unsigned char *)ptr - LP_HDR;
	base.mem_used -= *(size_t *)p;
	free(p);
}

static void *lp_realloc(void *user, void *ptr, size_t n) {
	if (!ptr) return lp_malloc(user, n);
	if (n == 0) { lp_free(user, ptr); return NULL; }
	unsigned char *p = (unsigned char *)ptr - LP_HDR;
	size_t old = *(size_t *)p;
	if (n > old && base.mem_cap && base.mem_used + (n - old) > base.mem_cap) return NULL;
	unsigned char *q = realloc(p, n + LP_HDR);
	if (!q) return NULL;
	*(size_t *)q = n;
	base.mem_used = base.mem_used - old + n;
	return q + LP_HDR;
}

static void lp_warn(void *user, const char *msg) {
	lp_doc *d = user;
	d->warnings++;
	snprintf(d->last_warning, sizeof d->last_warning, "%s", msg);
}

static void lp_error_msg(void *user, const char *msg) {
	// Errors are also reported through the caught message; keep the last one for context.
	lp_doc *d = user;
	snprintf(d->last_error, sizeof d->last_error, "%s", msg);
}

static void set_err(lp_doc *d, const char *msg) {
	snprintf(d->err, sizeof d->err, "%s", msg ? msg : "unknown MuPDF error");
}

// The system font for CJK text, which the linked MuPDF has none of built in (its Noto CJK font is left out to keep
// the library small): without one, Chinese, Japanese and Korean text in documents MuPDF lays out itself (Office,
// e-books, HTML, e-mail) and in PDFs that do not embed their fonts is extracted but drawn as nothing. Set by
// lp_set_cjk_font before the first context.
static char cjk_path[4096];
static int cjk_index[4]; // the face of a collection for each ordering: CNS (traditional), GB (simplified), Japan, Korea

void lp_set_cjk_font(const char *path, int tc, int sc, int jp, int kr) {
	snprintf(cjk_path, sizeof cjk_path, "%s", path ? path : "");
	cjk_index[FZ_ADOBE_CNS] = tc;
	cjk_index[FZ_ADOBE_GB] = sc;
	cjk_index[FZ_ADOBE_JAPAN] = jp;
	cjk_index[FZ_ADOBE_KOREA] = kr;
}

// cjk_buf is the CJK font file, read once a process (a collection is tens of megabytes, and MuPDF asks for a font
// for every CJK font resource of every PDF it opens); every font made from it keeps its own reference.
static fz_buffer *cjk_buf;
static pthread_mutex_t cjk_mu = PTHREAD_MUTEX_INITIALIZER;

static fz_font *cjk_font(fz_context *ctx, int ordering) {
	if (ordering < 0 || ordering > 3) return NULL;
	pthread_mutex_lock(&cjk_mu);
	if (!cjk_buf && cjk_path[0]) {
		fz_buffer *volatile buf = NULL;
		LP_TRY(ctx) { buf = fz_read_file(ctx, cjk_path); }
		LP_CATCH(ctx) { buf = NULL; }
		cjk_buf = buf;
		if (!buf) cjk_path[0] = 0; // unreadable: not tried again
	}
	fz_buffer *buf = cjk_buf;
	pthread_mutex_unlock(&cjk_mu);
	if (!buf) return NULL;
	fz_font *volatile font = NULL;
	LP_TRY(ctx) { font = fz_new_font_from_buffer(ctx, NULL, buf, cjk_index[ordering], 0); }
	LP_CATCH(ctx) { font = NULL; }
	return font;
}

// lp_cjk_font answers MuPDF's request for a PDF's CJK font that the file does not embed.
static fz_font *lp_cjk_font(fz_context *ctx, const char *name, int ordering, int serif) {
	(void)name;
	(void)serif;
	return cjk_font(ctx, ordering);
}

// lp_fallback_font answers MuPDF's request for a font for text that no font of the document has glyphs for: the
// CJK font for Han, kana, Hangul and Bopomofo (ucdn's script numbers), the face chosen by the text's language.
static fz_font *lp_fallback_font(fz_context *ctx, int script, int language, int serif, int bold, int italic) {
	(void)serif;
	(void)bold;
	(void)italic;
	enum { HANGUL = 24, HIRAGANA = 32, KATAKANA = 33, BOPOMOFO = 34, HAN = 35 };
	int ordering;
	switch (script) {
	case HANGUL: ordering = FZ_ADOBE_KOREA; break;
	case HIRAGANA: case KATAKANA: ordering = FZ_ADOBE_JAPAN; break;
	case BOPOMOFO: ordering = FZ_ADOBE_CNS; break;
	case HAN:
		if (language == FZ_LANG_ja) ordering = FZ_ADOBE_JAPAN;
		else if (language == FZ_LANG_ko) ordering = FZ_ADOBE_KOREA;
		else if (language == FZ_LANG_zh_Hant) ordering = FZ_ADOBE_CNS;
		else ordering = FZ_ADOBE_GB;
		break;
	default: return NULL;
	}
	return cjk_font(ctx, ordering);
}

// base_ctx returns the base context, made on first use; NULL when it cannot be made.
static fz_context *base_ctx(size_t mem_cap, size_t store) {
	pthread_mutex_lock(&base.init);
	if (!base.ctx) {
		for (int i = 0; i < LP_LOCKS; i++) pthread_mutex_init(&base.locks[i], NULL);
		base.lk.lock = lp_lock;
		base.lk.unlock = lp_unlock;
		base.alloc.malloc = lp_malloc;
		base.alloc.realloc = lp_realloc;
		base.alloc.free = lp_free;
		base.mem_cap = mem_cap;
		fz_context *ctx = fz_new_context_imp(&base.alloc, &base.lk, store, "1.28.0");
		if (ctx) {
			volatile int ok = 1;
			LP_TRY(ctx) {
				fz_register_document_handlers(ctx);
				fz_install_load_system_font_funcs(ctx, NULL, lp_cjk_font, lp_fallback_font);
			}
			LP_CATCH(ctx) { ok = 0; }
			if (ok) base.ctx = ctx;
			else fz_drop_context(ctx);
		}
	}
	fz_context *ctx = base.ctx;
	pthread_mutex_unlock(&base.init);
	return ctx;
}

lp_doc *lp_new(size_t mem_cap, size_t store) {
	fz_context *b = base_ctx(mem_cap, store);
	if (!b) return NULL;
	lp_doc *d = calloc(1, sizeof *d);
	if (!d) return NULL;
	d->page_index = -1;
	lp_lock(NULL, 0); // the counters' lock (FZ_LOCK_ALLOC)
	base.mem_cap = mem_cap;
	lp_unlock(NULL, 0);
	d->ctx = fz_clone_context(b);
	if (!d->ctx) {
		free(d);
		return NULL;
	}
	fz_set_warning_callback(d->ctx, lp_warn, d);
	fz_set_error_callback(d->ctx, lp_error_msg, d);
	return d;
}

int lp_open(lp_doc *d, const char *path) {
	fz_context *ctx = d->ctx;
	volatile int code = LP_OK;
	LP_TRY(ctx) {
		d->doc = fz_open_document(ctx, path);
		if (fz_needs_password(ctx, d->doc)) code = LP_NEEDS_PASSWORD;
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		d->doc = NULL;
		return LP_ERR;
	}
	return code;
}

int lp_open_as(lp_doc *d, const char *path, const unsigned char *data, size_t len, const char *magic, float w, float h, float em) {
	fz_context *ctx = d->ctx;
	fz_stream *volatile stm = NULL;
	fz_buffer *volatile buf = NULL;
	volatile int code = LP_OK;
	volatile int failed = 0;
	d->doc = NULL;
	LP_TRY(ctx) {
		// A file is read through a stream, never whole: MuPDF seeks to the parts it needs (a zip's directory).
		if (path) {
			stm = fz_open_file(ctx, path);
		} else {
			buf = fz_new_buffer_from_copied_data(ctx, data, len);
			stm = fz_open_buffer(ctx, buf);
		}
		d->doc = fz_open_document_with_stream(ctx, magic, stm);
		if (fz_needs_password(ctx, d->doc)) code = LP_NEEDS_PASSWORD;
		else if (fz_is_document_reflowable(ctx, d->doc)) fz_layout_document(ctx, d->doc, w, h, em);
	}
	LP_ALWAYS(ctx) {
		// The document keeps its own references to the stream and buffer.
		fz_drop_stream(ctx, stm);
		fz_drop_buffer(ctx, buf);
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		failed = 1;
	}
	if (failed) {
		if (d->doc) fz_drop_document(ctx, d->doc);
		d->doc = NULL;
		return LP_ERR;
	}
	return code;
}

int lp_authenticate(lp_doc *d, const char *password) {
	volatile int ok = 0;
	LP_TRY(d->ctx) { ok = fz_authenticate_password(d->ctx, d->doc, password); }
	LP_CATCH(d->ctx) {
		set_err(d, fz_caught_message(d->ctx));
		return LP_ERR;
	}
	return ok ? LP_OK : LP_NEEDS_PASSWORD;
}

int lp_count_pages(lp_doc *d, int *n) {
	LP_TRY(d->ctx) { *n = fz_count_pages(d->ctx, d->doc); }
	LP_CATCH(d->ctx) {
		set_err(d, fz_caught_message(d->ctx));
		return LP_ERR;
	}
	return LP_OK;
}

int lp_metadata(lp_doc *d, const char *key, char *buf, int size) {
	int n = -1;
	buf[0] = 0;
	LP_TRY(d->ctx) { n = fz_lookup_metadata(d->ctx, d->doc, key, buf, (size_t)size); }
	LP_CATCH(d->ctx) { buf[0] = 0; return -1; }
	return n;
}

// load_page keeps the most recent page loaded, because extraction asks for text and a thumbnail of the same page.
static int load_page(lp_doc *d, int index) {
	if (d->page && d->page_index == index) return LP_OK;
	if (d->list) {
		fz_drop_display_list(d->ctx, d->list);
		d->list = NULL;
	}
	if (d->page) {
		fz_drop_page(d->ctx, d->page);
		d->page = NULL;
		d->page_index = -1;
	}
	LP_TRY(d->ctx) {
		d->page = fz_load_page(d->ctx, d->doc, index);
		d->page_index = index;
	}
	LP_CATCH(d->ctx) {
		set_err(d, fz_caught_message(d->ctx));
		d->page = NULL;
		d->page_index = -1;
		return LP_ERR;
	}
	return LP_OK;
}

int lp_bound(lp_doc *d, int index, float *box) {
	if (load_page(d, index) != LP_OK) return LP_ERR;
	fz_rect r = {0, 0, 0, 0};
	LP_TRY(d->ctx) { r = fz_bound_page(d->ctx, d->page); }
	LP_CATCH(d->ctx) {
		set_err(d, fz_caught_message(d->ctx));
		return LP_ERR;
	}
	box[0] = r.x0; box[1] = r.y0; box[2] = r.x1; box[3] = r.y1;
	return LP_OK;
}

// run_page runs the loaded page's content into dev, untransformed (devices apply their own zoom): from its display
// list when one was recorded, else from the content stream.
static void run_page(fz_context *ctx, lp_doc *d, fz_device *dev) {
	fz_matrix id = {1, 0, 0, 1, 0, 0};
	if (d->list) fz_run_display_list(ctx, d->list, dev, id, fz_infinite_rect, NULL);
	else fz_run_page(ctx, d->page, dev, id, NULL);
}

int lp_text_xml(lp_doc *d, int index, char **out, size_t *outlen) {
	*out = NULL;
	*outlen = 0;
	if (load_page(d, index) != LP_OK) return LP_ERR;
	fz_context *ctx = d->ctx;
	// volatile: these are assigned inside the try block and read after a possible longjmp.
	fz_stext_page *volatile text = NULL;
	fz_device *volatile dev = NULL;
	fz_buffer *volatile buf = NULL;
	fz_output *volatile o = NULL;
	volatile int code = LP_OK;
	fz_matrix id = {1, 0, 0, 1, 0, 0};
	LP_TRY(ctx) {
		fz_rect b = fz_bound_page(ctx, d->page);
		text = fz_new_stext_page(ctx, b);
		dev = fz_new_stext_device(ctx, text, NULL);
		fz_run_page(ctx, d->page, dev, id, NULL);
		fz_close_device(ctx, dev);
		buf = fz_new_buffer(ctx, 1 << 16);
		o = fz_new_output_with_buffer(ctx, buf);
		fz_print_stext_page_as_xml(ctx, o, text, index + 1);
		fz_close_output(ctx, o);
		unsigned char *data = NULL;
		size_t n = fz_buffer_storage(ctx, buf, &data);
		*out = malloc(n + 1);
		if (*out) {
			memcpy(*out, data, n);
			(*out)[n] = 0;
			*outlen = n;
		}
	}
	LP_ALWAYS(ctx) {
		fz_drop_output(ctx, o);
		fz_drop_buffer(ctx, buf);
		fz_drop_device(ctx, dev);
		fz_drop_stext_page(ctx, text);
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		code = LP_ERR;
	}
	if (code == LP_OK && !*out) {
		set_err(d, "out of memory copying text");
		code = LP_ERR;
	}
	return code;
}

// charbuf collects lp_char records with plain malloc: it is handed to Go, which frees it.
typedef struct { lp_char *v; size_t n, cap; int oom; } charbuf;

static void put_rec(charbuf *b, int kind, int c, fz_rect r) {
	if (b->oom) return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		lp_char *v = realloc(b->v, cap * sizeof *v);
		if (!v) { b->oom = 1; return; }
		b->v = v;
		b->cap = cap;
	}
	lp_char *e = &b->v[b->n++];
	e->kind = kind;
	e->c = c;
	e->x0 = r.x0; e->y0 = r.y0; e->x1 = r.x1; e->y1 = r.y1;
}

static float min4(float a, float b, float c, float d) { float m = a < b ? a : b; if (c < m) m = c; return d < m ? d : m; }
static float max4(float a, float b, float c, float d) { float m = a > b ? a : b; if (c > m) m = c; return d > m ? d : m; }

// walk_blocks emits blocks, lines and characters in the order MuPDF's XML output lists them, descending into
// structure blocks (present only when structure is collected).
static void walk_blocks(charbuf *b, fz_stext_block *block, int depth) {
	fz_rect none = {0, 0, 0, 0};
	for (; block; block = block->next) {
		if (block->type == FZ_STEXT_BLOCK_STRUCT) {
			if (block->u.s.down && depth < 64) walk_blocks(b, block->u.s.down->first_block, depth + 1);
			continue;
		}
		if (block->type != FZ_STEXT_BLOCK_TEXT) continue;
		put_rec(b, LP_BLOCK, 0, block->bbox);
		for (fz_stext_line *line = block->u.t.first_line; line; line = line->next) {
			put_rec(b, LP_LINE, 0, none);
			for (fz_stext_char *ch = line->first_char; ch; ch = ch->next) {
				fz_quad q = ch->quad;
				fz_rect r = {min4(q.ul.x, q.ur.x, q.ll.x, q.lr.x), min4(q.ul.y, q.ur.y, q.ll.y, q.lr.y),
					max4(q.ul.x, q.ur.x, q.ll.x, q.lr.x), max4(q.ul.y, q.ur.y, q.ll.y, q.lr.y)};
				put_rec(b, LP_CHAR, ch->c, r);
			}
		}
	}
}

// keep_chars ends a text walk into the document's record buffer: the buffer (perhaps grown) is kept for the next
// page and, when the walk succeeded, handed out as the page's records.
static int keep_chars(lp_doc *d, charbuf *b, int code, lp_char **out, size_t *n) {
	d->recs = b->v;
	d->recs_cap = b->cap;
	if (code == LP_OK && b->oom) {
		set_err(d, "out of memory collecting text");
		code = LP_ERR;
	}
	if (code != LP_OK) return code;
	*out = b->v;
	*n = b->n;
	return LP_OK;
}

int lp_text_chars(lp_doc *d, int index, lp_char **out, size_t *n) {
	*out = NULL;
	*n = 0;
	if (load_page(d, index) != LP_OK) return LP_ERR;
	fz_context *ctx = d->ctx;
	fz_stext_page *volatile text = NULL;
	fz_device *volatile dev = NULL;
	volatile int code = LP_OK;
	// The records go into the document's buffer, kept from page to page: a fresh one per page was grown by
	// doubling and, past malloc's mmap threshold, faulted in anew every time.
	charbuf b = {d->recs, 0, d->recs_cap, 0};
	LP_TRY(ctx) {
		fz_rect r = fz_bound_page(ctx, d->page);
		text = fz_new_stext_page(ctx, r);
		dev = fz_new_stext_device(ctx, text, NULL);
		if (!d->list) d->list = fz_new_display_list_from_page(ctx, d->page);
		run_page(ctx, d, dev);
		fz_close_device(ctx, dev);
		walk_blocks(&b, text->first_block, 0);
	}
	LP_ALWAYS(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_stext_page(ctx, text);
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		code = LP_ERR;
	}
	return keep_chars(d, &b, code, out, n);
}

// lp_image_boxes lists the boxes of the raster images drawn on a page (LP_IMAGE records), where text may exist
// only as pixels. It is a separate pass so the text walk keeps MuPDF's default block segmentation; image blocks hold
// a reference to the image, not its decoded pixels.
int lp_image_boxes(lp_doc *d, int index, lp_char **out, size_t *n) {
	*out = NULL;
	*n = 0;
	if (load_page(d, index) != LP_OK) return LP_ERR;
	fz_context *ctx = d->ctx;
	fz_stext_page *volatile text = NULL;
	fz_device *volatile dev = NULL;
	volatile int code = LP_OK;
	charbuf b = {0};
	LP_TRY(ctx) {
		fz_rect r = fz_bound_page(ctx, d->page);
		fz_stext_options opts = {0};
		opts.flags = FZ_STEXT_PRESERVE_IMAGES;
		opts.scale = 1;
		text = fz_new_stext_page(ctx, r);
		dev = fz_new_stext_device(ctx, text, &opts);
		if (!d->list) d->list = fz_new_display_list_from_page(ctx, d->page);
		run_page(ctx, d, dev);
		fz_close_device(ctx, dev);
		for (fz_stext_block *block = text->first_block; block; block = block->next)
			if (block->type == FZ_STEXT_BLOCK_IMAGE) put_rec(&b, LP_IMAGE, 0, block->bbox);
	}
	LP_ALWAYS(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_stext_page(ctx, text);
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		code = LP_ERR;
	}
	if (code == LP_OK && b.oom) {
		set_err(d, "out of memory collecting image boxes");
		code = LP_ERR;
	}
	if (code != LP_OK) {
		free(b.v);
		return code;
	}
	*out = b.v;
	*n = b.n;
	return LP_OK;
}

int lp_render(lp_doc *d, int index, float zoom, int x0, int y0, int x1, int y1, unsigned char *samples) {
	if (load_page(d, index) != LP_OK) return LP_ERR;
	fz_context *ctx = d->ctx;
	fz_pixmap *volatile pix = NULL;
	fz_device *volatile dev = NULL;
	volatile int code = LP_OK;
	fz_irect r = {x0, y0, x1, y1};
	fz_matrix m = {zoom, 0, 0, zoom, 0, 0};
	LP_TRY(ctx) {
		pix = fz_new_pixmap_with_bbox_and_data(ctx, fz_device_rgb(ctx), r, NULL, 1, samples);
		fz_clear_pixmap_with_value(ctx, pix, 0xff);
		dev = fz_new_draw_device(ctx, m, pix);
		// The device applies the zoom.
		run_page(ctx, d, dev);
		fz_close_device(ctx, dev);
	}
	LP_ALWAYS(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_pixmap(ctx, pix);
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		code = LP_ERR;
	}
	return code;
}

// The tee device passes every call to two devices, so one run of a page (interpreting its content stream once)
// feeds both the text device and the draw device at ingestion, where recording a display list and replaying it
// twice cost more. Tiles go to both devices uncached (id 0): a device that had a tile cached would skip its
// contents, which the other device still needs.
typedef struct {
	fz_device super;
	fz_device *a, *b;
} lp_tee;
#define TEE_A(dev) (((lp_tee *)(dev))->a)
#define TEE_B(dev) (((lp_tee *)(dev))->b)

static void tee_fill_path(fz_context *ctx, fz_device *dev, const fz_path *path, int eo, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params cp) {
	fz_fill_path(ctx, TEE_A(dev), path, eo, ctm, cs, color, alpha, cp);
	fz_fill_path(ctx, TEE_B(dev), path, eo, ctm, cs, color, alpha, cp);
}
static void tee_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *st, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params cp) {
	fz_stroke_path(ctx, TEE_A(dev), path, st, ctm, cs, color, alpha, cp);
	fz_stroke_path(ctx, TEE_B(dev), path, st, ctm, cs, color, alpha, cp);
}
static void tee_clip_path(fz_context *ctx, fz_device *dev, const fz_path *path, int eo, fz_matrix ctm, fz_rect sc) {
	fz_clip_path(ctx, TEE_A(dev), path, eo, ctm, sc);
	fz_clip_path(ctx, TEE_B(dev), path, eo, ctm, sc);
}
static void tee_clip_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *st, fz_matrix ctm, fz_rect sc) {
	fz_clip_stroke_path(ctx, TEE_A(dev), path, st, ctm, sc);
	fz_clip_stroke_path(ctx, TEE_B(dev), path, st, ctm, sc);
}
static void tee_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params cp) {
	fz_fill_text(ctx, TEE_A(dev), text, ctm, cs, color, alpha, cp);
	fz_fill_text(ctx, TEE_B(dev), text, ctm, cs, color, alpha, cp);
}
static void tee_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *st, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params cp) {
	fz_stroke_text(ctx, TEE_A(dev), text, st, ctm, cs, color, alpha, cp);
	fz_stroke_text(ctx, TEE_B(dev), text, st, ctm, cs, color, alpha, cp);
}
static void tee_clip_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_rect sc) {
	fz_clip_text(ctx, TEE_A(dev), text, ctm, sc);
	fz_clip_text(ctx, TEE_B(dev), text, ctm, sc);
}
static void tee_clip_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *st, fz_matrix ctm, fz_rect sc) {
	fz_clip_stroke_text(ctx, TEE_A(dev), text, st, ctm, sc);
	fz_clip_stroke_text(ctx, TEE_B(dev), text, st, ctm, sc);
}
static void tee_ignore_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm) {
	fz_ignore_text(ctx, TEE_A(dev), text, ctm);
	fz_ignore_text(ctx, TEE_B(dev), text, ctm);
}
static void tee_fill_shade(fz_context *ctx, fz_device *dev, fz_shade *sh, fz_matrix ctm, float alpha, fz_color_params cp) {
	fz_fill_shade(ctx, TEE_A(dev), sh, ctm, alpha, cp);
	fz_fill_shade(ctx, TEE_B(dev), sh, ctm, alpha, cp);
}
static void tee_fill_image(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, float alpha, fz_color_params cp) {
	fz_fill_image(ctx, TEE_A(dev), img, ctm, alpha, cp);
	fz_fill_image(ctx, TEE_B(dev), img, ctm, alpha, cp);
}
static void tee_fill_image_mask(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, fz_colorspace *cs, const float *color, float alpha, fz_color_params cp) {
	fz_fill_image_mask(ctx, TEE_A(dev), img, ctm, cs, color, alpha, cp);
	fz_fill_image_mask(ctx, TEE_B(dev), img, ctm, cs, color, alpha, cp);
}
static void tee_clip_image_mask(fz_context *ctx, fz_device *dev, fz_image *img, fz_matrix ctm, fz_rect sc) {
	fz_clip_image_mask(ctx, TEE_A(dev), img, ctm, sc);
	fz_clip_image_mask(ctx, TEE_B(dev), img, ctm, sc);
}
static void tee_pop_clip(fz_context *ctx, fz_device *dev) {
	fz_pop_clip(ctx, TEE_A(dev));
	fz_pop_clip(ctx, TEE_B(dev));
}
static void tee_begin_mask(fz_context *ctx, fz_device *dev, fz_rect area, int lum, fz_colorspace *cs, const float *bc, fz_color_params cp) {
	fz_begin_mask(ctx, TEE_A(dev), area, lum, cs, bc, cp);
	fz_begin_mask(ctx, TEE_B(dev), area, lum, cs, bc, cp);
}
static void tee_end_mask(fz_context *ctx, fz_device *dev, fz_function *fn) {
	fz_end_mask_tr(ctx, TEE_A(dev), fn);
	fz_end_mask_tr(ctx, TEE_B(dev), fn);
}
static void tee_begin_group(fz_context *ctx, fz_device *dev, fz_rect area, fz_colorspace *cs, int isolated, int knockout, int blendmode, float alpha) {
	fz_begin_group(ctx, TEE_A(dev), area, cs, isolated, knockout, blendmode, alpha);
	fz_begin_group(ctx, TEE_B(dev), area, cs, isolated, knockout, blendmode, alpha);
}
static void tee_end_group(fz_context *ctx, fz_device *dev) {
	fz_end_group(ctx, TEE_A(dev));
	fz_end_group(ctx, TEE_B(dev));
}
static int tee_begin_tile(fz_context *ctx, fz_device *dev, fz_rect area, fz_rect view, float xstep, float ystep, fz_matrix ctm, int id, int doc_id) {
	fz_begin_tile_tid(ctx, TEE_A(dev), area, view, xstep, ystep, ctm, 0, 0);
	fz_begin_tile_tid(ctx, TEE_B(dev), area, view, xstep, ystep, ctm, 0, 0);
	return 0;
}
static void tee_end_tile(fz_context *ctx, fz_device *dev) {
	fz_end_tile(ctx, TEE_A(dev));
	fz_end_tile(ctx, TEE_B(dev));
}
static void tee_render_flags(fz_context *ctx, fz_device *dev, int set, int clear) {
	fz_render_flags(ctx, TEE_A(dev), set, clear);
	fz_render_flags(ctx, TEE_B(dev), set, clear);
}
static void tee_set_default_colorspaces(fz_context *ctx, fz_device *dev, fz_default_colorspaces *dcs) {
	fz_set_default_colorspaces(ctx, TEE_A(dev), dcs);
	fz_set_default_colorspaces(ctx, TEE_B(dev), dcs);
}
static void tee_begin_layer(fz_context *ctx, fz_device *dev, const char *name) {
	fz_begin_layer(ctx, TEE_A(dev), name);
	fz_begin_layer(ctx, TEE_B(dev), name);
}
static void tee_end_layer(fz_context *ctx, fz_device *dev) {
	fz_end_layer(ctx, TEE_A(dev));
	fz_end_layer(ctx, TEE_B(dev));
}
static void tee_begin_structure(fz_context *ctx, fz_device *dev, fz_structure st, const char *raw, int idx) {
	fz_begin_structure(ctx, TEE_A(dev), st, raw, idx);
	fz_begin_structure(ctx, TEE_B(dev), st, raw, idx);
}
static void tee_end_structure(fz_context *ctx, fz_device *dev) {
	fz_end_structure(ctx, TEE_A(dev));
	fz_end_structure(ctx, TEE_B(dev));
}
static void tee_begin_metatext(fz_context *ctx, fz_device *dev, fz_metatext meta, const char *text) {
	fz_begin_metatext(ctx, TEE_A(dev), meta, text);
	fz_begin_metatext(ctx, TEE_B(dev), meta, text);
}
static void tee_end_metatext(fz_context *ctx, fz_device *dev) {
	fz_end_metatext(ctx, TEE_A(dev));
	fz_end_metatext(ctx, TEE_B(dev));
}

// new_tee makes a tee of a and b, which stay the caller's to close and drop.
static fz_device *new_tee(fz_context *ctx, fz_device *a, fz_device *b) {
	lp_tee *t = (lp_tee *)fz_new_device_of_size(ctx, sizeof(lp_tee));
	t->a = a;
	t->b = b;
	t->super.hints = a->hints & b->hints; // what both devices can do without
	t->super.fill_path = tee_fill_path;
	t->super.stroke_path = tee_stroke_path;
	t->super.clip_path = tee_clip_path;
	t->super.clip_stroke_path = tee_clip_stroke_path;
	t->super.fill_text = tee_fill_text;
	t->super.stroke_text = tee_stroke_text;
	t->super.clip_text = tee_clip_text;
	t->super.clip_stroke_text = tee_clip_stroke_text;
	t->super.ignore_text = tee_ignore_text;
	t->super.fill_shade = tee_fill_shade;
	t->super.fill_image = tee_fill_image;
	t->super.fill_image_mask = tee_fill_image_mask;
	t->super.clip_image_mask = tee_clip_image_mask;
	t->super.pop_clip = tee_pop_clip;
	t->super.begin_mask = tee_begin_mask;
	t->super.end_mask = tee_end_mask;
	t->super.begin_group = tee_begin_group;
	t->super.end_group = tee_end_group;
	t->super.begin_tile = tee_begin_tile;
	t->super.end_tile = tee_end_tile;
	t->super.render_flags = tee_render_flags;
	t->super.set_default_colorspaces = tee_set_default_colorspaces;
	t->super.begin_layer = tee_begin_layer;
	t->super.end_layer = tee_end_layer;
	t->super.begin_structure = tee_begin_structure;
	t->super.end_structure = tee_end_structure;
	t->super.begin_metatext = tee_begin_metatext;
	t->super.end_metatext = tee_end_metatext;
	return &t->super;
}

// lp_text_render is lp_text_chars and lp_render of the same page in one run of it: at ingestion each page is
// extracted once, so no display list is recorded (a page that has one already is replayed from it).
int lp_text_render(lp_doc *d, int index, float zoom, int x0, int y0, int x1, int y1, unsigned char *samples, lp_char **out, size_t *n) {
	*out = NULL;
	*n = 0;
	if (load_page(d, index) != LP_OK) return LP_ERR;
	fz_context *ctx = d->ctx;
	fz_stext_page *volatile text = NULL;
	fz_device *volatile sdev = NULL;
	fz_pixmap *volatile pix = NULL;
	fz_device *volatile ddev = NULL;
	fz_device *volatile tee = NULL;
	volatile int code = LP_OK;
	charbuf b = {d->recs, 0, d->recs_cap, 0};
	fz_irect ir = {x0, y0, x1, y1};
	fz_matrix m = {zoom, 0, 0, zoom, 0, 0};
	LP_TRY(ctx) {
		fz_rect r = fz_bound_page(ctx, d->page);
		text = fz_new_stext_page(ctx, r);
		sdev = fz_new_stext_device(ctx, text, NULL);
		pix = fz_new_pixmap_with_bbox_and_data(ctx, fz_device_rgb(ctx), ir, NULL, 1, samples);
		fz_clear_pixmap_with_value(ctx, pix, 0xff);
		ddev = fz_new_draw_device(ctx, m, pix);
		tee = new_tee(ctx, sdev, ddev);
		run_page(ctx, d, tee);
		fz_close_device(ctx, tee);
		fz_close_device(ctx, sdev);
		fz_close_device(ctx, ddev);
		walk_blocks(&b, text->first_block, 0);
	}
	LP_ALWAYS(ctx) {
		fz_drop_device(ctx, tee);
		fz_drop_device(ctx, ddev);
		fz_drop_pixmap(ctx, pix);
		fz_drop_device(ctx, sdev);
		fz_drop_stext_page(ctx, text);
	}
	LP_CATCH(ctx) {
		set_err(d, fz_caught_message(ctx));
		code = LP_ERR;
	}
	return keep_chars(d, &b, code, out, n);
}

// lp_to_gray checks whether an RGBA render is all grey (r = g = b) and, if so, packs it in place into one byte per
// pixel and returns 1: a grey JPEG encodes one component instead of three, and most text pages are grey.
int lp_to_gray(unsigned char *s, size_t pixels) {
	for (size_t i = 0; i < pixels; i++) {
		const unsigned char *p = s + 4 * i;
		if (p[0] != p[1] || p[1] != p[2]) return 0;
	}
	for (size_t i = 0; i < pixels; i++) s[i] = s[4 * i];
	return 1;
}

void lp_worker_init(void) {
	pthread_mutex_lock(&base.init);
	if (!base.ctx) base.single = 1; // before any context exists, so no lock is ever held when it changes
	pthread_mutex_unlock(&base.init);

	// glibc's defaults give blocks over 128 KB (display lists, renders, text records) their own mapping and trim
	// the heap's free top past 128 KB, so each page faulted the same memory in again: a third of a worker's page
	// faults on text pages. Only blocks of 32 MB and more (huge renders, decoded scans) are mapped now, and up to
	// 64 MB of free heap is kept.
	// glibc only: other C libraries (MinGW's msvcrt/UCRT, macOS) have no mallopt and keep their defaults.
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

void lp_free_doc(lp_doc *d) {
	if (!d) return;
	if (d->list) fz_drop_display_list(d->ctx, d->list);
	free(d->recs);
	if (d->page) fz_drop_page(d->ctx, d->page);
	if (d->doc) fz_drop_document(d->ctx, d->doc);
	fz_drop_context(d->ctx);
	free(d);
}
