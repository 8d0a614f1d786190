/*
 * The NBD server's TLS pre-shared keys (include/nbd_keys.h): a static table
 * filled from the boot file nbd.psk, and a lookup that does not reveal by
 * its timing which identity matched or how much of one did.
 */
#include <errno.h>
#include <string.h>

#include "boot_files.h"
#include "memzero.h"
#include "nbd_keys.h"
#include "printk.h"
#include "psk_file.h"

#define KEY_FILE "nbd.psk"

static struct psk_entry keys[NBD_PSK_MAX];
static unsigned int nr_keys;

/* The parser's reasons, one printed line each ("line 3: key is not hex"). */
static void print_reasons(const char *why, int skipped)
{
	int printed = 0;

	for (const char *nl; (nl = strchr(why, '\n')); why = nl + 1, printed++)
		pr_err("nbd: %s %.*s; skipped\n", KEY_FILE, (int)(nl - why), why);
	if (skipped > printed)
		pr_err("nbd: %s: %d more bad lines skipped\n", KEY_FILE, skipped - printed);
}

int nbd_keys_load(void)
{
	const struct boot_file *f = boot_file_find(KEY_FILE);
	char why[1024];

	if (!f)
		return (int)nr_keys;
	memzero_explicit(keys, sizeof(keys));
	int skipped = psk_file_parse((const char *)f->data, f->size, keys, NBD_PSK_MAX,
				     &nr_keys, why, sizeof(why));
	boot_file_wipe(KEY_FILE);
	print_reasons(why, skipped);
	pr_info("nbd: %u TLS %s from %s\n", nr_keys, nr_keys == 1 ? "identity" : "identities",
		KEY_FILE);
	return (int)nr_keys;
}

unsigned int nbd_psk_count(void)
{
	return nr_keys;
}

/*
 * 0 when e's identity is exactly id[0..n), without a branch on any byte:
 * every byte of the NUL-padded identity is compared (past n with 0), and a
 * NUL inside the first n bytes (no identity has one) counts as a difference.
 */
static u32 identity_differs(const struct psk_entry *e, const u8 *id, size_t n)
{
	u32 diff = 0;

	for (size_t j = 0; j < sizeof(e->identity); j++) {
		u8 have = (u8)e->identity[j], want = j < n ? id[j] : 0;
		diff |= (u32)(have ^ want) | ((u32)(j < n) & (u32)(have == 0));
	}
	return diff;
}

int nbd_psk_lookup(void *arg, const u8 *id, size_t id_len, u8 *key, size_t *key_len)
{
	u32 hit = 0, index = 0;

	(void)arg;
	if (id_len > PSK_IDENTITY_MAX)
		return -ENOENT;	/* the length is the client's to know */
	for (u32 i = 0; i < nr_keys; i++) {
		u32 match = identity_differs(&keys[i], id, id_len) == 0;
		hit |= match;
		index |= (0u - match) & i;	/* identities are unique: one match at most */
	}
	if (!hit)
		return -ENOENT;
	if (*key_len < keys[index].key_len)
		return -ENOSPC;
	memcpy(key, keys[index].key, keys[index].key_len);
	*key_len = keys[index].key_len;
	return 0;
}
