// Baseline JPEG encoder for renders (jpeg.c).
#ifndef PROOFGLASS_JPEG_H
#define PROOFGLASS_JPEG_H

#include <stddef.h>

enum { LP_JPEG_OK = 0, LP_JPEG_BAD_ARGS = 1, LP_JPEG_NOMEM = 2 };

// lp_jpeg encodes w×h pixels (comps 1: one grey byte per pixel; 4: R, G, B and an ignored byte) whose rows start
// stride bytes apart, at quality 1..100 (the scaling of the Annex K tables that libjpeg and Go's image/jpeg use).
// On LP_JPEG_OK *out holds *outlen bytes allocated with malloc, which the caller frees.
int lp_jpeg(const unsigned char *pix, int w, int h, int stride, int comps, int quality, unsigned char **out,
	size_t *outlen);

#endif
