// Reads the /Encrypt dictionary through MuPDF's object API (declared here from the MuPDF 1.28 API documentation).
#include <string.h>
#include "mupdf.h"
#include "crypt.h"

typedef struct pdf_document pdf_document;
typedef struct pdf_obj pdf_obj;
pdf_document *pdf_specifics(fz_context *ctx, fz_document *doc);
pdf_obj *pdf_trailer(fz_context *ctx, pdf_document *doc);
pdf_obj *pdf_dict_gets(fz_context *ctx, pdf_obj *dict, const char *key);
pdf_obj *pdf_array_get(fz_context *ctx, pdf_obj *array, int i);
int pdf_is_dict(fz_context *ctx, pdf_obj *obj);
int pdf_is_int(fz_context *ctx, pdf_obj *obj);
int pdf_is_name(fz_context *ctx, pdf_obj *obj);
int pdf_is_string(fz_context *ctx, pdf_obj *obj);
int pdf_is_bool(fz_context *ctx, pdf_obj *obj);
int pdf_to_int(fz_context *ctx, pdf_obj *obj);
int pdf_to_bool(fz_context *ctx, pdf_obj *obj);
const char *pdf_to_name(fz_context *ctx, pdf_obj *obj);
const char *pdf_to_str_buf(fz_context *ctx, pdf_obj *obj);
size_t pdf_to_str_len(fz_context *ctx, pdf_obj *obj);

static int get_int(fz_context *ctx, pdf_obj *dict, const char *key, int missing, int bad) {
	pdf_obj *o = pdf_dict_gets(ctx, dict, key);
	if (!o) return missing;
	return pdf_is_int(ctx, o) ? pdf_to_int(ctx, o) : bad;
}

static int get_str(fz_context *ctx, pdf_obj *o, unsigned char *buf, int cap) {
	if (!o || !pdf_is_string(ctx, o)) return -1;
	size_t n = pdf_to_str_len(ctx, o);
	memcpy(buf, pdf_to_str_buf(ctx, o), n < (size_t)cap ? n : (size_t)cap);
	return (int)n;
}

int lp_crypt_info(lp_doc *d, lp_crypt *out) {
	fz_context *ctx = d->ctx;
	memset(out, 0, sizeof *out);
	LP_TRY(ctx) {
		pdf_document *pdf = d->doc ? pdf_specifics(ctx, d->doc) : NULL;
		pdf_obj *trailer = pdf ? pdf_trailer(ctx, pdf) : NULL;
		pdf_obj *enc = trailer ? pdf_dict_gets(ctx, trailer, "Encrypt") : NULL;
		if (enc && pdf_is_dict(ctx, enc)) {
			out->present = 1;
			pdf_obj *f = pdf_dict_gets(ctx, enc, "Filter");
			if (f && pdf_is_name(ctx, f)) {
				strncpy(out->filter, pdf_to_name(ctx, f), sizeof out->filter - 1);
			}
			out->v = get_int(ctx, enc, "V", -1, -1);
			out->r = get_int(ctx, enc, "R", -1, -1);
			out->length = get_int(ctx, enc, "Length", -1, -2);
			out->p = get_int(ctx, enc, "P", 0, 0);
			pdf_obj *em = pdf_dict_gets(ctx, enc, "EncryptMetadata");
			out->encrypt_metadata = (em && pdf_is_bool(ctx, em)) ? pdf_to_bool(ctx, em) : 1;
			out->olen = get_str(ctx, pdf_dict_gets(ctx, enc, "O"), out->o, sizeof out->o);
			out->ulen = get_str(ctx, pdf_dict_gets(ctx, enc, "U"), out->u, sizeof out->u);
			pdf_obj *id = pdf_dict_gets(ctx, trailer, "ID");
			out->idlen = get_str(ctx, id ? pdf_array_get(ctx, id, 0) : NULL, out->id0, sizeof out->id0);
		}
	}
	LP_CATCH(ctx) {
		return LP_ERR;
	}
	return LP_OK;
}
