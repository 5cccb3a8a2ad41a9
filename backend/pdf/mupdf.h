// Declarations of the MuPDF 1.28 C API used by Proofglass, written from the API documentation. The library itself is
// the static build that github.com/gen2brain/go-fitz bundles and links; go-fitz's Go API lacks password
// authentication, region rendering and per-character boxes, so this package calls MuPDF directly.
#ifndef PROOFGLASS_MUPDF_H
#define PROOFGLASS_MUPDF_H

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

// MuPDF's exception frames: the same choice fitz/system.h makes per platform (HAVE_SIGSETJMP), since the frame's
// buffer lives in MuPDF's own error stack and must have the layout the library was built with: sigsetjmp/siglongjmp
// on Unix and macOS, plain setjmp/longjmp elsewhere (Windows, MinGW-w64 included).
#ifndef HAVE_SIGSETJMP
#if defined(__APPLE__) || (defined(__unix) && !defined(__EMSCRIPTEN__))
#define HAVE_SIGSETJMP 1
#else
#define HAVE_SIGSETJMP 0
#endif
#endif
#if HAVE_SIGSETJMP
#define fz_setjmp(BUF) sigsetjmp(BUF, 0)
typedef sigjmp_buf fz_jmp_buf;
#else
#define fz_setjmp(BUF) setjmp(BUF)
typedef jmp_buf fz_jmp_buf;
#endif
fz_jmp_buf *fz_push_try(fz_context *ctx);
int fz_do_try(fz_context *ctx);
int fz_do_always(fz_context *ctx);
int fz_do_catch(fz_context *ctx);
const char *fz_caught_message(fz_context *ctx);
int fz_caught(fz_context *ctx);
#define LP_TRY(ctx) if (!fz_setjmp(*fz_push_try(ctx))) if (fz_do_try(ctx)) do

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
typedef struct fz_stream fz_stream;
fz_stream *fz_open_file(fz_context *ctx, const char *filename);
fz_stream *fz_open_buffer(fz_context *ctx, fz_buffer *buf);
void fz_drop_stream(fz_context *ctx, fz_stream *stm);
fz_buffer *fz_new_buffer_from_copied_data(fz_context *ctx, const unsigned char *data, size_t size);
fz_document *fz_open_document_with_stream(fz_context *ctx, const char *magic, fz_stream *stream);
int fz_is_document_reflowable(fz_context *ctx, fz_document *doc);
void fz_layout_document(fz_context *ctx, fz_document *doc, float w, float h, float em);
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

// The device structure as in MuPDF 1.28's device.h, for the tee device (mupdf.c) that feeds one run of a page to
// the text and draw devices. TestDeviceLayout compares it with the library's header where that is at hand.
typedef struct fz_path fz_path;
typedef struct fz_stroke_state fz_stroke_state;
typedef struct fz_text fz_text;
typedef struct fz_shade fz_shade;
typedef struct fz_function fz_function;
typedef struct fz_default_colorspaces fz_default_colorspaces;
typedef struct fz_device_container_stack fz_device_container_stack;
typedef struct { uint8_t ri, bp, op, opm; } fz_color_params;
typedef int fz_structure; // enums in MuPDF, passed as int
typedef int fz_metatext;
struct fz_device {
	int refs;
	int hints;
	int flags;
	void (*close_device)(fz_context *, fz_device *);
	void (*drop_device)(fz_context *, fz_device *);
	void (*fill_path)(fz_context *, fz_device *, const fz_path *, int even_odd, fz_matrix, fz_colorspace *, const float *color, float alpha, fz_color_params);
	void (*stroke_path)(fz_context *, fz_device *, const fz_path *, const fz_stroke_state *, fz_matrix, fz_colorspace *, const float *color, float alpha, fz_color_params);
	void (*clip_path)(fz_context *, fz_device *, const fz_path *, int even_odd, fz_matrix, fz_rect scissor);
	void (*clip_stroke_path)(fz_context *, fz_device *, const fz_path *, const fz_stroke_state *, fz_matrix, fz_rect scissor);
	void (*fill_text)(fz_context *, fz_device *, const fz_text *, fz_matrix, fz_colorspace *, const float *color, float alpha, fz_color_params);
	void (*stroke_text)(fz_context *, fz_device *, const fz_text *, const fz_stroke_state *, fz_matrix, fz_colorspace *, const float *color, float alpha, fz_color_params);
	void (*clip_text)(fz_context *, fz_device *, const fz_text *, fz_matrix, fz_rect scissor);
	void (*clip_stroke_text)(fz_context *, fz_device *, const fz_text *, const fz_stroke_state *, fz_matrix, fz_rect scissor);
	void (*ignore_text)(fz_context *, fz_device *, const fz_text *, fz_matrix);
	void (*fill_shade)(fz_context *, fz_device *, fz_shade *, fz_matrix, float alpha, fz_color_params);
	void (*fill_image)(fz_context *, fz_device *, fz_image *, fz_matrix, float alpha, fz_color_params);
	void (*fill_image_mask)(fz_context *, fz_device *, fz_image *, fz_matrix, fz_colorspace *, const float *color, float alpha, fz_color_params);
	void (*clip_image_mask)(fz_context *, fz_device *, fz_image *, fz_matrix, fz_rect scissor);
	void (*pop_clip)(fz_context *, fz_device *);
	void (*begin_mask)(fz_context *, fz_device *, fz_rect area, int luminosity, fz_colorspace *, const float *bc, fz_color_params);
	void (*end_mask)(fz_context *, fz_device *, fz_function *fn);
	void (*begin_group)(fz_context *, fz_device *, fz_rect area, fz_colorspace *, int isolated, int knockout, int blendmode, float alpha);
	void (*end_group)(fz_context *, fz_device *);
	int (*begin_tile)(fz_context *, fz_device *, fz_rect area, fz_rect view, float xstep, float ystep, fz_matrix, int id, int doc_id);
	void (*end_tile)(fz_context *, fz_device *);
	void (*render_flags)(fz_context *, fz_device *, int set, int clear);
	void (*set_default_colorspaces)(fz_context *, fz_device *, fz_default_colorspaces *);
	void (*begin_layer)(fz_context *, fz_device *, const char *layer_name);
	void (*end_layer)(fz_context *, fz_device *);
	void (*begin_structure)(fz_context *, fz_device *, fz_structure standard, const char *raw, int idx);
	void (*end_structure)(fz_context *, fz_device *);
	void (*begin_metatext)(fz_context *, fz_device *, fz_metatext meta, const char *text);
	void (*end_metatext)(fz_context *, fz_device *);
	fz_rect d1_rect;
	int container_len;
	int container_cap;
	fz_device_container_stack *container;
	fz_device *passthrough;
};
fz_device *fz_new_device_of_size(fz_context *ctx, int size);
void fz_fill_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_colorspace *colorspace, const float *color, float alpha, fz_color_params color_params);
void fz_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *stroke, fz_matrix ctm, fz_colorspace *colorspace, const float *color, float alpha, fz_color_params color_params);
void fz_clip_path(fz_context *ctx, fz_device *dev, const fz_path *path, int even_odd, fz_matrix ctm, fz_rect scissor);
void fz_clip_stroke_path(fz_context *ctx, fz_device *dev, const fz_path *path, const fz_stroke_state *stroke, fz_matrix ctm, fz_rect scissor);
void fz_fill_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_colorspace *colorspace, const float *color, float alpha, fz_color_params color_params);
void fz_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *stroke, fz_matrix ctm, fz_colorspace *colorspace, const float *color, float alpha, fz_color_params color_params);
void fz_clip_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm, fz_rect scissor);
void fz_clip_stroke_text(fz_context *ctx, fz_device *dev, const fz_text *text, const fz_stroke_state *stroke, fz_matrix ctm, fz_rect scissor);
void fz_ignore_text(fz_context *ctx, fz_device *dev, const fz_text *text, fz_matrix ctm);
void fz_pop_clip(fz_context *ctx, fz_device *dev);
void fz_fill_shade(fz_context *ctx, fz_device *dev, fz_shade *shade, fz_matrix ctm, float alpha, fz_color_params color_params);
void fz_fill_image(fz_context *ctx, fz_device *dev, fz_image *image, fz_matrix ctm, float alpha, fz_color_params color_params);
void fz_fill_image_mask(fz_context *ctx, fz_device *dev, fz_image *image, fz_matrix ctm, fz_colorspace *colorspace, const float *color, float alpha, fz_color_params color_params);
void fz_clip_image_mask(fz_context *ctx, fz_device *dev, fz_image *image, fz_matrix ctm, fz_rect scissor);
void fz_begin_mask(fz_context *ctx, fz_device *dev, fz_rect area, int luminosity, fz_colorspace *colorspace, const float *bc, fz_color_params color_params);
void fz_end_mask_tr(fz_context *ctx, fz_device *dev, fz_function *fn);
void fz_begin_group(fz_context *ctx, fz_device *dev, fz_rect area, fz_colorspace *cs, int isolated, int knockout, int blendmode, float alpha);
void fz_end_group(fz_context *ctx, fz_device *dev);
int fz_begin_tile_tid(fz_context *ctx, fz_device *dev, fz_rect area, fz_rect view, float xstep, float ystep, fz_matrix ctm, int id, int doc_id);
void fz_end_tile(fz_context *ctx, fz_device *dev);
void fz_render_flags(fz_context *ctx, fz_device *dev, int set, int clear);
void fz_set_default_colorspaces(fz_context *ctx, fz_device *dev, fz_default_colorspaces *default_cs);
void fz_begin_layer(fz_context *ctx, fz_device *dev, const char *layer_name);
void fz_end_layer(fz_context *ctx, fz_device *dev);
void fz_begin_structure(fz_context *ctx, fz_device *dev, fz_structure standard, const char *raw, int idx);
void fz_end_structure(fz_context *ctx, fz_device *dev);
void fz_begin_metatext(fz_context *ctx, fz_device *dev, fz_metatext meta, const char *text);
void fz_end_metatext(fz_context *ctx, fz_device *dev);

// Fonts the document does not carry (fitz/font.h, fitz/text.h).
enum { FZ_ADOBE_CNS, FZ_ADOBE_GB, FZ_ADOBE_JAPAN, FZ_ADOBE_KOREA };
#define FZ_LANG_TAG2(c1, c2) ((c1 - 'a' + 1) + ((c2 - 'a' + 1) * 27))
#define FZ_LANG_TAG3(c1, c2, c3) ((c1 - 'a' + 1) + ((c2 - 'a' + 1) * 27) + ((c3 - 'a' + 1) * 27 * 27))
enum { FZ_LANG_ko = FZ_LANG_TAG2('k', 'o'), FZ_LANG_ja = FZ_LANG_TAG2('j', 'a'), FZ_LANG_zh_Hant = FZ_LANG_TAG3('z', 'h', 't') };
typedef fz_font *(fz_load_system_font_fn)(fz_context *ctx, const char *name, int bold, int italic, int needs_exact_metrics);
typedef fz_font *(fz_load_system_cjk_font_fn)(fz_context *ctx, const char *name, int ordering, int serif);
typedef fz_font *(fz_load_system_fallback_font_fn)(fz_context *ctx, int script, int language, int serif, int bold, int italic);
void fz_install_load_system_font_funcs(fz_context *ctx, fz_load_system_font_fn *f, fz_load_system_cjk_font_fn *f_cjk,
	fz_load_system_fallback_font_fn *f_fallback);
fz_font *fz_new_font_from_buffer(fz_context *ctx, const char *name, fz_buffer *buffer, int index, int use_glyph_bbox);
fz_buffer *fz_read_file(fz_context *ctx, const char *filename);

#endif
