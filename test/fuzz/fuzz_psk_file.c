/*
 * libFuzzer harness: pre-shared key files (lib/psk_file.c, psktool's
 * format), the bytes a user hands the kernel as the boot file nbd.psk.
 *
 * Input: byte 0 = table size (mod 9), byte 1 = reasons buffer size - 1,
 * then the file (an exact-size heap copy, so ASan sees any read outside it).
 * Seeds: test/fuzz/seeds/fuzz_psk_file (psktool's output, CRLF, comments,
 * bad lines).
 *
 * Checked after every input: the count, each entry's identity (1-63 bytes,
 * no ':' or control character, NUL-padded) and key length, no identity
 * twice, nothing written past the entries returned, the reasons
 * NUL-terminated inside their buffer, each one of the parser's own
 * sentences with a line number (so no byte of the input is echoed), and no
 * more reasons than lines skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_file.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define MAX_ENTRIES 8
#define SENTINEL 0xA5

static const char *const sentences[] = {
	"no ':' between identity and key",
	"identity is empty",
	"identity is longer than 63 bytes",
	"identity has a control character",
	"key is empty",
	"key is not hex",
	"key has an odd number of hex digits",
	"key is longer than 64 bytes",
	"identity given again; the first one counts",
	"more identities than the table holds",
};

static void check_entry(const struct psk_entry *e, const struct psk_entry *all, unsigned int i)
{
	size_t len = strnlen(e->identity, sizeof(e->identity));

	CHECK(len >= 1 && len <= PSK_IDENTITY_MAX);
	for (size_t j = 0; j < len; j++) {
		u8 c = (u8)e->identity[j];
		CHECK(c >= 0x20 && c != 0x7f && c != ':');
	}
	for (size_t j = len; j < sizeof(e->identity); j++)
		CHECK(e->identity[j] == 0);
	CHECK(e->key_len >= 1 && e->key_len <= PSK_KEY_MAX);
	for (unsigned int k = 0; k < i; k++)
		CHECK(strcmp(all[k].identity, e->identity) != 0);
}

/* Each reason line is "line N: SENTENCE\n" with a known sentence; returns how many. */
static unsigned int check_reasons(const char *why)
{
	unsigned int count = 0;

	while (*why) {
		const char *nl = strchr(why, '\n');
		unsigned int line;
		int at = 0;
		CHECK(nl);
		CHECK(sscanf(why, "line %u: %n", &line, &at) == 1 && at > 0 && line >= 1);
		size_t len = (size_t)(nl - why) - (size_t)at;
		bool known = false;
		for (size_t s = 0; s < sizeof(sentences) / sizeof(sentences[0]); s++)
			known |= strlen(sentences[s]) == len && !memcmp(sentences[s], why + at, len);
		CHECK(known);
		count++;
		why = nl + 1;
	}
	return count;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct psk_entry e[MAX_ENTRIES + 1];
	static char why[257];
	unsigned int n = 1234;

	if (size < 2)
		return 0;
	unsigned int max = data[0] % (MAX_ENTRIES + 1);
	size_t why_len = (size_t)data[1] + 1;
	size_t len = size - 2;
	char *text = malloc(len ? len : 1);
	memcpy(text, data + 2, len);
	memset(e, SENTINEL, sizeof(e));
	memset(why, SENTINEL, sizeof(why));

	int skipped = psk_file_parse(text, len, e, max, &n, why, why_len);
	CHECK(skipped >= 0);
	CHECK(n <= max);
	for (unsigned int i = 0; i < n; i++)
		check_entry(&e[i], e, i);
	for (size_t b = n * sizeof(e[0]); b < sizeof(e); b++)
		CHECK(((const u8 *)e)[b] == SENTINEL);
	CHECK(memchr(why, '\0', why_len));
	for (size_t b = why_len; b < sizeof(why); b++)
		CHECK((u8)why[b] == SENTINEL);
	CHECK(check_reasons(why) <= (unsigned int)skipped);
	free(text);
	return 0;
}
