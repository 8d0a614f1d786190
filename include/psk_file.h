/*
 * Pre-shared key files in psktool's format (GnuTLS's psktool -u NAME -p
 * FILE; what libnbd's tls-psk-file= and QEMU's tls-creds-psk read): one
 * "identity:hexkey" per line, e.g.
 *
 *   alice:4d617eeb7f85d6952d84dcf242effcfe4de5583723774a54c60dfd9031c57689
 *
 * What pmemk accepts beyond psktool's output: LF or CRLF line ends, a last
 * line without one, empty (or all blank) lines, and comment lines whose first
 * byte is '#'. The identity is 1 to 63 bytes, no ':' and no control
 * characters (bytes below 0x20 and 0x7f); the key is an even number of hex
 * digits (either case), 1 to 64 bytes, with nothing after it (no trailing
 * blanks). The input is untrusted: a line that breaks a rule is skipped
 * with a reason naming its line number, never its content (it may hold a
 * key); an identity given again is skipped (the first one counts, as in
 * GnuTLS, which takes the first matching line).
 */
#ifndef PMEMK_PSK_FILE_H
#define PMEMK_PSK_FILE_H

#include "types.h"

#define PSK_IDENTITY_MAX 63	/* bytes, without the NUL */
#define PSK_KEY_MAX 64		/* bytes (128 hex digits) */

struct psk_entry {
	char identity[PSK_IDENTITY_MAX + 1];	/* NUL-terminated, NUL-padded */
	u8 key[PSK_KEY_MAX];
	u8 key_len;
};

/*
 * Parse len bytes of text (NULs and all: they make a line bad) into out[0..max),
 * *n set to the entries stored. Each skipped line adds one reason line
 * ("line 3: key is not hex\n") to why (NUL-terminated; reasons that no
 * longer fit are left out, the count still counts them). Writes nothing to
 * out beyond *n, and keeps no key byte anywhere else.
 * Returns the number of lines skipped (0: every line was used), or -EINVAL
 * when out, n or why is NULL or why_len is 0.
 */
int psk_file_parse(const char *text, size_t len, struct psk_entry *out, unsigned int max,
		   unsigned int *n, char *why, size_t why_len);

#endif
