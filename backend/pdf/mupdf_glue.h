// Interface between the Go side of package pdf and mupdf.c.
#ifndef PROOFGLASS_MUPDF_GLUE_H
#define PROOFGLASS_MUPDF_GLUE_H

#include <stddef.h>

enum { LP_OK = 0, LP_ERR = 1, LP_NEEDS_PASSWORD = 2 };

typedef struct lp_doc {
	struct fz_context *ctx;
	struct fz_document *doc;
	struct fz_page *page;
	int page_index;
	// list is the loaded page's content recorded once, so extraction's text pass and thumbnail render do not each
	// interpret the content stream; NULL until text is extracted.
	struct fz_display_list *list;
	// recs is lp_text_chars' output, reused from page to page (freed with the document).
	struct lp_char *recs;
	size_t recs_cap;
	int warnings;
	char last_warning[256];
	char last_error[256];
	char err[512];
} lp_doc;

// lp_new makes a document's context: a clone of the process's base context, made by the first call with mem_cap
// (MuPDF's allocations in this process, every open document together; each call sets it) and store (the shared
// resource cache's size).
lp_doc *lp_new(size_t mem_cap, size_t store);
int lp_open(lp_doc *d, const char *path);
// lp_set_cjk_font names the font file (and the face of a collection for traditional Chinese, simplified Chinese,
// Japanese and Korean) that CJK text is drawn with when a document has no font for it; call before lp_new.
void lp_set_cjk_font(const char *path, int tc, int sc, int jp, int kr);
// lp_open_as opens a file (path) or bytes (data, len; path NULL) as the type magic names (an extension MuPDF's
// handlers list, such as "docx"): the blob store's files have no extension for MuPDF to go by. A reflowable
// document (HTML, EPUB, ...) is laid out on w by h point pages with an em of em points.
int lp_open_as(lp_doc *d, const char *path, const unsigned char *data, size_t len, const char *magic, float w, float h, float em);
int lp_authenticate(lp_doc *d, const char *password);
int lp_count_pages(lp_doc *d, int *n);
int lp_metadata(lp_doc *d, const char *key, char *buf, int size);
int lp_bound(lp_doc *d, int index, float *box);
int lp_text_xml(lp_doc *d, int index, char **out, size_t *outlen);
// lp_char is one record of a page's structured text: a block start, a line start or a character with its box.
typedef struct lp_char {
	int kind; // LP_BLOCK, LP_LINE, LP_CHAR; LP_IMAGE from lp_image_boxes
	int c;
	float x0, y0, x1, y1;
} lp_char;
enum { LP_BLOCK = 1, LP_LINE = 2, LP_CHAR = 3, LP_IMAGE = 4 };

// lp_text_chars lists page index's structured text; *out belongs to d and is valid until the next call.
int lp_text_chars(lp_doc *d, int index, lp_char **out, size_t *n);
int lp_image_boxes(lp_doc *d, int index, lp_char **out, size_t *n);
int lp_render(lp_doc *d, int index, float zoom, int x0, int y0, int x1, int y1, unsigned char *samples);
// lp_text_render is lp_text_chars and lp_render (pixels into samples) in one run of the page.
int lp_text_render(lp_doc *d, int index, float zoom, int x0, int y0, int x1, int y1, unsigned char *samples, lp_char **out, size_t *n);
int lp_to_gray(unsigned char *samples, size_t pixels);
void lp_free_doc(lp_doc *d);
// lp_worker_init prepares a worker process, whose one thread makes every MuPDF call: no locks, and malloc tuned for
// allocating and freeing the same large blocks every page.
void lp_worker_init(void);

#endif
