/*
 * The NBD server's TLS pre-shared keys (net/nbd_keys.c): loaded once at
 * network init from the boot file nbd.psk (psktool's format,
 * include/psk_file.h), whose bytes are then wiped; looked up by identity
 * during a TLS handshake. Keys are never printed.
 */
#ifndef PMEMK_NBD_KEYS_H
#define PMEMK_NBD_KEYS_H

#include "types.h"

#define NBD_PSK_MAX 16		/* identities kept */

/*
 * Take the boot file nbd.psk, if the loader gave one: parse it into the
 * table (replacing what was there), wipe the file's bytes, print one line
 * per skipped line (its number and why, no content) and
 * "nbd: N TLS identities from nbd.psk". Without the file: nothing printed,
 * the table is left as it is. Returns the identities in the table.
 * Called by net_init; a second call finds no file and changes nothing.
 */
int nbd_keys_load(void);

/* How many identities the table holds (0: TLS-PSK has no keys). */
unsigned int nbd_psk_count(void);

/*
 * The key for identity id[0..id_len) (bytes as the client sent them; not
 * NUL-terminated): every table entry is compared, in time that depends on
 * the table size and id_len only. *key_len: in, the size of key; out, the
 * key's length. Returns 0; -ENOENT when no identity matches; -ENOSPC when
 * the key does not fit (nothing copied). arg is unused (a callback's
 * context: mbedTLS's f_psk p_psk). Logs nothing.
 */
int nbd_psk_lookup(void *arg, const u8 *id, size_t id_len, u8 *key, size_t *key_len);

#endif
