// Declarations of the MuPDF 1.28 C API used by Loupe, written from the API documentation. The library itself is
// the static build that github.com/gen2brain/go-fitz bundles and links; go-fitz's Go API lacks password
// authentication, region rendering and per-character boxes, so this package calls MuPDF directly.
#ifndef LOUPE_MUPDF_H
#define LOUPE_MUPDF_H

#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>

typedef struct fz_context fz_context;
typedef struct fz_document fz_document;
typedef struct fz_page fz_page;
typedef struct fz_device fz_device;
typedef struct fz_stext_page fz_stext_page;
typedef struct fz_output fz_output;
typedef struct fz_buffer fz_buffer;
typedef struct fz_pixmap fz_pixmap;
typedef struct fz_colorspace fz_colorspace;
typedef struct fz_separations fz_separations;
typedef struct fz_cookie fz_cookie;
typedef struct fz_font fz_font;
typedef struct fz_image fz_image;
typedef struct fz_pool fz_pool;
typedef struct fz_pool_array fz_pool_array;
typedef struct fz_display_list fz_display_list;

typedef struct { float x0, y0, x1, y1; } fz_rect;
typedef struct { int x0, y0, x1, y1; } fz_irect;
typedef struct { float a, b, c, d, e, f; } fz_matrix;
typedef struct {
	void *user;
	void *(*malloc)(void *, size_t);
	void *(*realloc)(void *, void *, size_t);
	void (*free)(void *, void *);
} fz_alloc_context;
typedef struct {
	void *user;
	void (*lock)(void *user, int lock);
	void (*unlock)(void *user, int lock);
} fz_locks_context;

// MuPDF uses sigsetjmp/siglongjmp on Unix for its exception frames.
typedef sigjmp_buf fz_jmp_buf;
fz_jmp_buf *fz_push_try(fz_context *ctx);
int fz_do_try(fz_context *ctx);
int fz_do_always(fz_context *ctx);
int fz_do_catch(fz_context *ctx);
const char *fz_caught_message(fz_context *ctx);
int fz_caught(fz_context *ctx);
#define LP_TRY(ctx) if (!sigsetjmp(*fz_push_try(ctx), 0)) if (fz_do_try(ctx)) do
#define LP_ALWAYS(ctx) while (0); if (fz_do_always(ctx)) do
#define LP_CATCH(ctx) while (0); if (fz_do_catch(ctx))

typedef void(fz_msg_cb)(void *user, const char *message);
fz_context *fz_new_context_imp(const fz_alloc_context *alloc, const fz_locks_context *locks, size_t max_store, const char *version);
void fz_drop_context(fz_context *ctx);
fz_context *fz_clone_context(fz_context *ctx);
void fz_set_warning_callback(fz_context *ctx, fz_msg_cb *cb, void *user);
void fz_set_error_callback(fz_context *ctx, fz_msg_cb *cb, void *user);
void fz_register_document_handlers(fz_context *ctx);

fz_document *fz_open_document(fz_context *ctx, const char *filename);
void fz_drop_document(fz_context *ctx, fz_document *doc);
int fz_needs_password(fz_context *ctx, fz_document *doc);
int fz_authenticate_password(fz_context *ctx, fz_document *doc, const char *password);
int fz_count_pages(fz_context *ctx, fz_document *doc);
int fz_lookup_metadata(fz_context *ctx, fz_document *doc, const char *key, char *buf, size_t size);
fz_page *fz_load_page(fz_context *ctx, fz_document *doc, int number);
void fz_drop_page(fz_context *ctx, fz_page *page);
fz_rect fz_bound_page(fz_context *ctx, fz_page *page);
void fz_run_page(fz_context *ctx, fz_page *page, fz_device *dev, fz_matrix transform, fz_cookie *cookie);

// Structured text as laid out in MuPDF 1.28's structured-text.h; extraction walks it directly instead of printing
// and re-parsing XML. Only the members read here need to be right, but every member before them must be present.
typedef struct { float x, y; } fz_point;
typedef struct { fz_point ul, ur, ll, lr; } fz_quad;
typedef struct fz_stext_char fz_stext_char;
typedef struct fz_stext_line fz_stext_line;
typedef struct fz_stext_block fz_stext_block;
typedef struct fz_stext_struct fz_stext_struct;
enum { FZ_STEXT_BLOCK_TEXT = 0, FZ_STEXT_BLOCK_IMAGE = 1, FZ_STEXT_BLOCK_STRUCT = 2 };
// fz_stext_options as in structured-text.h; only FZ_STEXT_PRESERVE_IMAGES is used (lp_image_boxes).
typedef struct { int flags; float scale; fz_rect clip; } fz_stext_options;
enum { FZ_STEXT_PRESERVE_IMAGES = 4 };
struct fz_stext_char {
	int c;
	uint16_t bidi;
	uint16_t flags;
	uint32_t argb;
	fz_point origin;
	fz_quad quad;
	float size;
	fz_font *font;
	fz_stext_char *next;
};
struct fz_stext_line {
	uint8_t wmode;
	uint8_t flags;
	fz_point dir;
	fz_rect bbox;
	fz_stext_char *first_char, *last_char;
	fz_stext_line *prev, *next;
};
struct fz_stext_block {
	int type;
	int id;
	fz_rect bbox;
	union {
		struct { fz_stext_line *first_line, *last_line; int flags; } t;
		struct { fz_matrix transform; fz_image *image; } i;
		struct { fz_stext_struct *down; int index; } s;
		struct { uint32_t flags; uint32_t argb; } v;
		struct { void *xs; void *ys; void *info; } b;
	} u;
	fz_stext_block *prev, *next;
};
struct fz_stext_struct {
	fz_stext_block *up;
	fz_stext_struct *parent;
	fz_stext_block *first_block;
	fz_stext_block *last_block;
	/* standard, raw: not read */
};
struct fz_stext_page {
	int refs;
	fz_pool *pool;
	fz_rect mediabox;
	fz_stext_block *first_block;
	/* builder state: not read */
};

fz_display_list *fz_new_display_list_from_page(fz_context *ctx, fz_page *page);
void fz_run_display_list(fz_context *ctx, fz_display_list *list, fz_device *dev, fz_matrix ctm, fz_rect scissor, fz_cookie *cookie);
void fz_drop_display_list(fz_context *ctx, fz_display_list *list);
extern const fz_rect fz_infinite_rect;

void fz_close_device(fz_context *ctx, fz_device *dev);
void fz_drop_device(fz_context *ctx, fz_device *dev);
fz_stext_page *fz_new_stext_page(fz_context *ctx, fz_rect mediabox);
void fz_drop_stext_page(fz_context *ctx, fz_stext_page *page);
fz_device *fz_new_stext_device(fz_context *ctx, fz_stext_page *page, const void *options);
void fz_print_stext_page_as_xml(fz_context *ctx, fz_output *out, fz_stext_page *page, int id);

fz_buffer *fz_new_buffer(fz_context *ctx, size_t capacity);
void fz_drop_buffer(fz_context *ctx, fz_buffer *buf);
size_t fz_buffer_storage(fz_context *ctx, fz_buffer *buf, unsigned char **datap);
fz_output *fz_new_output_with_buffer(fz_context *ctx, fz_buffer *buf);
void fz_close_output(fz_context *ctx, fz_output *out);
void fz_drop_output(fz_context *ctx, fz_output *out);

fz_colorspace *fz_device_rgb(fz_context *ctx);
fz_pixmap *fz_new_pixmap_with_bbox_and_data(fz_context *ctx, fz_colorspace *cs, fz_irect rect, fz_separations *seps, int alpha, unsigned char *samples);
void fz_drop_pixmap(fz_context *ctx, fz_pixmap *pix);
void fz_clear_pixmap_with_value(fz_context *ctx, fz_pixmap *pix, int value);
fz_device *fz_new_draw_device(fz_context *ctx, fz_matrix transform, fz_pixmap *dest);

#endif
