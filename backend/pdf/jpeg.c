// Baseline JPEG encoder for renders, written from ITU-T T.81 (the DCT of A.3.3, the Huffman procedures of Annex C
// and F.1.2, the example tables of Annex K) and JFIF's YCbCr conversion. It is specialised for what the renderer
// produces — 8-bit grey or RGBA pixels — and always uses 4:2:0 chroma and the Annex K Huffman tables, so the tables
// are built once. A block of one flat colour (the margins and gaps that make up most of a text page) is coded
// without a DCT. Go's image/jpeg spent ~1.1–1.9 ms per 256-px thumbnail, a third of a worker's time.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "jpeg.h"

// Annex K, tables K.1 and K.2, in natural (row-major) order.
static const uint8_t base_quant[2][64] = {
	{16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
		14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
		49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99},
	{17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
		47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99},
};

// Annex K, tables K.3 to K.6: code counts by length (BITS) and symbols in code order (HUFFVAL).
static const uint8_t dc_bits[2][16] = {
	{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
	{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
};
static const uint8_t dc_vals[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const uint8_t ac_bits[2][16] = {
	{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125},
	{0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119},
};
static const uint8_t ac_vals[2][162] = {
	{0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
		0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
		0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37,
		0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
		0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
		0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
		0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
		0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
		0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa},
	{0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22,
		0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
		0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36,
		0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
		0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
		0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
		0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
		0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
		0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa},
};

// A Huffman code table: code and length by symbol (Annex C's EHUFCO and EHUFSI).
typedef struct { uint16_t code[256]; uint8_t len[256]; } huff;

// Index 0 is luminance, 1 chrominance.
static huff dc_huff[2], ac_huff[2];
// zigzag[k] is the natural index of the k-th coefficient in zig-zag order (figure A.6).
static uint8_t zigzag[64];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

// build_huff assigns canonical codes in order of length (Annex C, figures C.1 to C.3).
static void build_huff(huff *h, const uint8_t *bits, const uint8_t *vals) {
	unsigned code = 0;
	int k = 0;
	for (int len = 1; len <= 16; len++) {
		for (int i = 0; i < bits[len - 1]; i++) {
			h->code[vals[k]] = (uint16_t)code++;
			h->len[vals[k]] = (uint8_t)len;
			k++;
		}
		code <<= 1;
	}
}

static void init_tables(void) {
	for (int t = 0; t < 2; t++) {
		build_huff(&dc_huff[t], dc_bits[t], dc_vals);
		build_huff(&ac_huff[t], ac_bits[t], ac_vals[t]);
	}
	// Walk the anti-diagonals, alternating direction: up-right on even ones, down-left on odd ones.
	int k = 0;
	for (int s = 0; s < 15; s++) {
		for (int i = 0; i <= s; i++) {
			int r = (s & 1) ? i : s - i, c = s - r;
			if (r < 8 && c < 8) zigzag[k++] = (uint8_t)(8 * r + c);
		}
	}
}

// wbuf is the growing output with the entropy coder's bit accumulator.
typedef struct {
	uint8_t *p;
	size_t n, cap;
	int oom;
	uint64_t acc;
	int bits;
} wbuf;

// reserve makes room for need more bytes; a block never writes more than ~450 (64 coefficients of at most 27
// bits, each byte possibly stuffed).
static int reserve(wbuf *b, size_t need) {
	if (b->oom) return 0;
	if (b->cap - b->n >= need) return 1;
	size_t cap = b->cap * 2;
	if (cap < b->n + need) cap = b->n + need;
	uint8_t *p = realloc(b->p, cap);
	if (!p) { b->oom = 1; return 0; }
	b->p = p;
	b->cap = cap;
	return 1;
}

static void put16(wbuf *b, unsigned v) {
	b->p[b->n++] = (uint8_t)(v >> 8);
	b->p[b->n++] = (uint8_t)v;
}

// putbits appends the low len bits of v, most significant first, stuffing a zero byte after each 0xFF (F.1.2.3).
static inline void putbits(wbuf *b, unsigned v, int len) {
	b->acc = (b->acc << len) | (v & ((1u << len) - 1));
	b->bits += len;
	while (b->bits >= 8) {
		b->bits -= 8;
		uint8_t c = (uint8_t)(b->acc >> b->bits);
		b->p[b->n++] = c;
		if (c == 0xff) b->p[b->n++] = 0;
	}
}

// flushbits pads the last byte with one bits (F.1.2.3).
static void flushbits(wbuf *b) {
	if (b->bits > 0) putbits(b, 0x7f, 8 - b->bits);
}

static inline int nbits(unsigned v) { return v ? 32 - __builtin_clz(v) : 0; }

// code_block writes one block's quantised coefficients, given in zig-zag order with nz flagging the non-zero AC
// ones (bit k for coefficient k): the DC difference, then runs of zeros and AC values (F.1.2.1, F.1.2.2).
static void code_block(wbuf *b, const int *zz, uint64_t nz, int *pred, const huff *dc, const huff *ac) {
	int diff = zz[0] - *pred;
	*pred = zz[0];
	unsigned mag = diff < 0 ? (unsigned)-diff : (unsigned)diff;
	int s = nbits(mag);
	putbits(b, dc->code[s], dc->len[s]);
	if (s) putbits(b, diff < 0 ? (unsigned)(diff - 1) : (unsigned)diff, s);
	int last = 0; // the previous coded position
	while (nz) {
		int k = __builtin_ctzll(nz);
		nz &= nz - 1;
		int run = k - last - 1;
		last = k;
		while (run > 15) {
			putbits(b, ac->code[0xf0], ac->len[0xf0]);
			run -= 16;
		}
		int v = zz[k];
		mag = v < 0 ? (unsigned)-v : (unsigned)v;
		s = nbits(mag);
		int sym = (run << 4) | s;
		putbits(b, ac->code[sym], ac->len[sym]);
		putbits(b, v < 0 ? (unsigned)(v - 1) : (unsigned)v, s);
	}
	if (last < 63) putbits(b, ac->code[0], ac->len[0]);
}

#define C1 0.98078528040323044913f // cos(k*pi/16)
#define C2 0.92387953251128675613f
#define C3 0.83146961230254523708f
#define C4 0.70710678118654752440f
#define C5 0.55557023301960222474f
#define C6 0.38268343236508977173f
#define C7 0.19509032201612826785f

// dct8 is the 8-point DCT of A.3.3 without its factor 1/2 (applied with the quantiser): the sums and differences
// of mirrored samples give the even and the odd outputs.
static inline void dct8(float *p, int s) {
	float s0 = p[0] + p[7 * s], s1 = p[s] + p[6 * s], s2 = p[2 * s] + p[5 * s], s3 = p[3 * s] + p[4 * s];
	float d0 = p[0] - p[7 * s], d1 = p[s] - p[6 * s], d2 = p[2 * s] - p[5 * s], d3 = p[3 * s] - p[4 * s];
	float t0 = s0 + s3, t1 = s1 + s2, t2 = s0 - s3, t3 = s1 - s2;
	p[0] = C4 * (t0 + t1);
	p[4 * s] = C4 * (t0 - t1);
	p[2 * s] = C2 * t2 + C6 * t3;
	p[6 * s] = C6 * t2 - C2 * t3;
	p[s] = C1 * d0 + C3 * d1 + C5 * d2 + C7 * d3;
	p[3 * s] = C3 * d0 - C7 * d1 - C1 * d2 - C5 * d3;
	p[5 * s] = C5 * d0 - C1 * d1 + C7 * d2 + C3 * d3;
	p[7 * s] = C7 * d0 - C5 * d1 + C3 * d2 - C1 * d3;
}

// plane is one component's samples; blocks reaching past its edge repeat the last row and column.
typedef struct {
	const uint8_t *p;
	int w, h, stride;
} plane;

// load_block copies the 8×8 block at (x, y), level-shifted, and reports whether all its samples are equal.
static int load_block(const plane *pl, int x, int y, float *blk) {
	int diff = 0;
	int first = pl->p[(size_t)(y < pl->h ? y : pl->h - 1) * pl->stride + (x < pl->w ? x : pl->w - 1)];
	if (x + 8 <= pl->w && y + 8 <= pl->h) {
		for (int r = 0; r < 8; r++) {
			const uint8_t *row = pl->p + (size_t)(y + r) * pl->stride + x;
			for (int c = 0; c < 8; c++) {
				diff |= row[c] ^ first;
				blk[8 * r + c] = (float)row[c] - 128.0f;
			}
		}
		return diff == 0;
	}
	for (int r = 0; r < 8; r++) {
		int yy = y + r < pl->h ? y + r : pl->h - 1;
		const uint8_t *row = pl->p + (size_t)yy * pl->stride;
		for (int c = 0; c < 8; c++) {
			int v = row[x + c < pl->w ? x + c : pl->w - 1];
			diff |= v ^ first;
			blk[8 * r + c] = (float)v - 128.0f;
		}
	}
	return diff == 0;
}

// round_clamp rounds to the nearest integer (ties to even: adding and removing 1.5 * 2^23 leaves no fraction bits)
// and keeps the result within baseline's 11-bit coefficients, branch-free so the quantiser loop vectorises.
static inline int round_clamp(float v) {
	v = (v + 12582912.0f) - 12582912.0f;
	v = v > 1023.0f ? 1023.0f : v;
	v = v < -1023.0f ? -1023.0f : v;
	return (int)v;
}

// encode_block transforms, quantises (recip holds 1/4 of each step's inverse: the DCT's two factors of 1/2, in
// zig-zag order) and codes the block at (x, y) of pl.
static void encode_block(wbuf *b, const plane *pl, int x, int y, const float *recip, int *pred, const huff *dc,
	const huff *ac) {
	float blk[64];
	int zz[64];
	uint64_t nz = 0;
	if (load_block(pl, x, y, blk)) {
		// A flat block's only coefficient is its DC, 8 times the level-shifted sample.
		zz[0] = round_clamp(32.0f * blk[0] * recip[0]);
	} else {
		for (int r = 0; r < 8; r++) dct8(blk + 8 * r, 1);
		for (int c = 0; c < 8; c++) dct8(blk + c, 8);
		float v[64];
		for (int k = 0; k < 64; k++) v[k] = blk[zigzag[k]];
		for (int k = 0; k < 64; k++) zz[k] = round_clamp(v[k] * recip[k]);
		for (int k = 1; k < 64; k++) nz |= (uint64_t)(zz[k] != 0) << k;
	}
	code_block(b, zz, nz, pred, dc, ac);
}

static void put_dqt(wbuf *b, int id, const uint8_t *qt) {
	put16(b, 0xffdb);
	put16(b, 67);
	b->p[b->n++] = (uint8_t)id;
	for (int k = 0; k < 64; k++) b->p[b->n++] = qt[zigzag[k]];
}

static void put_dht(wbuf *b, int class_id, const uint8_t *bits, const uint8_t *vals) {
	int n = 0;
	for (int i = 0; i < 16; i++) n += bits[i];
	put16(b, 0xffc4);
	put16(b, (unsigned)(3 + 16 + n));
	b->p[b->n++] = (uint8_t)class_id;
	memcpy(b->p + b->n, bits, 16);
	b->n += 16;
	memcpy(b->p + b->n, vals, (size_t)n);
	b->n += (size_t)n;
}

int lp_jpeg(const unsigned char *pix, int w, int h, int stride, int comps, int quality, unsigned char **out,
	size_t *outlen) {
	*out = NULL;
	*outlen = 0;
	if (w <= 0 || h <= 0 || w > 65535 || h > 65535 || (comps != 1 && comps != 4) || stride < w * comps)
		return LP_JPEG_BAD_ARGS;
	pthread_once(&tables_once, init_tables);
	if (quality < 1) quality = 1;
	if (quality > 100) quality = 100;
	int scale = quality < 50 ? 5000 / quality : 200 - 2 * quality;
	uint8_t qt[2][64];
	float recip[2][64];
	for (int t = 0; t < 2; t++) {
		for (int i = 0; i < 64; i++) {
			int v = (base_quant[t][i] * scale + 50) / 100;
			v = v < 1 ? 1 : v > 255 ? 255 : v;
			qt[t][i] = (uint8_t)v;
		}
		for (int k = 0; k < 64; k++) recip[t][k] = 0.25f / (float)qt[t][zigzag[k]];
	}
	int ncomp = comps == 1 ? 1 : 3;
	wbuf b = {0};
	uint8_t *planes = NULL;
	if (!reserve(&b, 1024 + (size_t)w * h / 8)) goto nomem;

	// Headers: SOI, quantisation tables, frame, Huffman tables, scan (B.2).
	put16(&b, 0xffd8);
	put_dqt(&b, 0, qt[0]);
	if (ncomp == 3) put_dqt(&b, 1, qt[1]);
	put16(&b, 0xffc0);
	put16(&b, (unsigned)(8 + 3 * ncomp));
	b.p[b.n++] = 8;
	put16(&b, (unsigned)h);
	put16(&b, (unsigned)w);
	b.p[b.n++] = (uint8_t)ncomp;
	for (int c = 0; c < ncomp; c++) {
		b.p[b.n++] = (uint8_t)(c + 1);
		b.p[b.n++] = ncomp == 3 && c == 0 ? 0x22 : 0x11; // luma sampled 2×2 against chroma: 4:2:0
		b.p[b.n++] = c == 0 ? 0 : 1;
	}
	for (int t = 0; t < (ncomp == 3 ? 2 : 1); t++) {
		put_dht(&b, t, dc_bits[t], dc_vals);
		put_dht(&b, 0x10 | t, ac_bits[t], ac_vals[t]);
	}
	put16(&b, 0xffda);
	put16(&b, (unsigned)(6 + 2 * ncomp));
	b.p[b.n++] = (uint8_t)ncomp;
	for (int c = 0; c < ncomp; c++) {
		b.p[b.n++] = (uint8_t)(c + 1);
		b.p[b.n++] = c == 0 ? 0x00 : 0x11;
	}
	b.p[b.n++] = 0;
	b.p[b.n++] = 63;
	b.p[b.n++] = 0;

	if (ncomp == 1) {
		plane y = {pix, w, h, stride};
		int pred = 0;
		for (int by = 0; by < h; by += 8) {
			for (int bx = 0; bx < w; bx += 8) {
				if (!reserve(&b, 512)) goto nomem;
				encode_block(&b, &y, bx, by, recip[0], &pred, &dc_huff[0], &ac_huff[0]);
			}
		}
	} else {
		// Y at full resolution; Cb and Cr from the mean of each 2×2 pixels (JFIF's conversion is linear, so
		// converting the mean equals averaging the converted values), in 16-bit fixed point.
		int cw = (w + 1) / 2, ch = (h + 1) / 2;
		planes = malloc((size_t)w * h + 2 * (size_t)cw * ch);
		if (!planes) goto nomem;
		uint8_t *yp = planes, *cbp = planes + (size_t)w * h, *crp = cbp + (size_t)cw * ch;
		for (int r = 0; r < h; r++) {
			const uint8_t *s = pix + (size_t)r * stride;
			uint8_t *d = yp + (size_t)r * w;
			for (int c = 0; c < w; c++, s += 4)
				d[c] = (uint8_t)((19595 * s[0] + 38470 * s[1] + 7471 * s[2] + 32768) >> 16);
		}
		for (int r = 0; r < ch; r++) {
			const uint8_t *s0 = pix + (size_t)(2 * r) * stride;
			const uint8_t *s1 = 2 * r + 1 < h ? s0 + stride : s0;
			for (int c = 0; c < cw; c++) {
				int x0 = 8 * c, x1 = 2 * c + 1 < w ? x0 + 4 : x0;
				int R = s0[x0] + s0[x1] + s1[x0] + s1[x1];
				int G = s0[x0 + 1] + s0[x1 + 1] + s1[x0 + 1] + s1[x1 + 1];
				int B = s0[x0 + 2] + s0[x1 + 2] + s1[x0 + 2] + s1[x1 + 2];
				// Sums of four: shift by 18 instead of 16; +128 offset keeps the numerators positive.
				int cb = (-11059 * R - 21709 * G + 32768 * B + (128 << 18) + (1 << 17)) >> 18;
				int cr = (32768 * R - 27439 * G - 5329 * B + (128 << 18) + (1 << 17)) >> 18;
				cbp[(size_t)r * cw + c] = (uint8_t)(cb > 255 ? 255 : cb);
				crp[(size_t)r * cw + c] = (uint8_t)(cr > 255 ? 255 : cr);
			}
		}
		plane y = {yp, w, h, w}, cb = {cbp, cw, ch, cw}, cr = {crp, cw, ch, cw};
		int pred[3] = {0, 0, 0};
		for (int my = 0; my < h; my += 16) {
			for (int mx = 0; mx < w; mx += 16) {
				if (!reserve(&b, 6 * 512)) goto nomem;
				encode_block(&b, &y, mx, my, recip[0], &pred[0], &dc_huff[0], &ac_huff[0]);
				encode_block(&b, &y, mx + 8, my, recip[0], &pred[0], &dc_huff[0], &ac_huff[0]);
				encode_block(&b, &y, mx, my + 8, recip[0], &pred[0], &dc_huff[0], &ac_huff[0]);
				encode_block(&b, &y, mx + 8, my + 8, recip[0], &pred[0], &dc_huff[0], &ac_huff[0]);
				encode_block(&b, &cb, mx / 2, my / 2, recip[1], &pred[1], &dc_huff[1], &ac_huff[1]);
				encode_block(&b, &cr, mx / 2, my / 2, recip[1], &pred[2], &dc_huff[1], &ac_huff[1]);
			}
		}
	}
	if (!reserve(&b, 16)) goto nomem;
	flushbits(&b);
	put16(&b, 0xffd9);
	free(planes);
	*out = b.p;
	*outlen = b.n;
	return LP_JPEG_OK;
nomem:
	free(planes);
	free(b.p);
	return LP_JPEG_NOMEM;
}
