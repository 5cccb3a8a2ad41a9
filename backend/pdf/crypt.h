// The encryption dictionary of an opened PDF, read so that a damaged one is reported as damaged, not as a
// password prompt no password can satisfy.
#ifndef PROOFGLASS_CRYPT_H
#define PROOFGLASS_CRYPT_H

#include "mupdf_glue.h"

typedef struct lp_crypt {
	int present;          // the trailer has an /Encrypt dictionary
	char filter[64];      // /Filter, "" when missing
	int v, r;             // /V and /R; -1 when missing or not an integer
	int length;           // /Length in bits; -1 when missing, -2 when not an integer
	int p;                // /P
	int encrypt_metadata; // /EncryptMetadata, 1 when missing
	unsigned char o[64], u[64], id0[64];
	int olen, ulen, idlen; // byte lengths, as in the file (up to 64 kept)
} lp_crypt;

int lp_crypt_info(lp_doc *d, lp_crypt *out);

#endif
