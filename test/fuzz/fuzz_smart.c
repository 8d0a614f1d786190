/*
 * libFuzzer harness: the SMART payload decoder (nvdimm/smart.c) over any
 * bytes a DIMM's _DSM function 1 could return. The input is the output
 * buffer as is. Invariants: decode succeeds exactly when the buffer holds
 * a zero status and the whole payload, and then every field equals its
 * byte(s) at the documented offset (nd_smart.h); a failure leaves the
 * result unknown and a reason in `why`; the JSON and the summary of either
 * stay inside their buffers and the health word is one of ndctl's.
 *
 * Seeds: test/fuzz/seeds/fuzz_smart (test/fuzz/mkseeds.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_json.h"
#include "nd_smart.h"
#include "unaligned.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "invariant broken: %s\n", #cond);                          \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct nd_json j = { .first = true, .compact = true };
	struct nd_smart s;
	char why[64] = "", line[96], t[16];
	const char *h;
	int rc = nd_smart_decode(data, size, &s, why, sizeof(why));
	bool good = size >= ND_SMART_OUT_LEN && get_le32(data) == 0;

	CHECK((rc == 0) == good);
	CHECK(s.known == good);
	if (good) {
		CHECK(s.flags == get_le32(data + 4));
		CHECK(s.health == data[12] && s.spares == data[13] && s.life_used == data[14]);
		CHECK(s.media_temp == get_le16(data + 16) && s.ctrl_temp == get_le16(data + 18));
		CHECK(s.shutdown_count == get_le32(data + 20) && s.shutdown_state == data[35]);
	} else {
		CHECK(why[0] && strlen(why) < sizeof(why));
	}
	h = nd_smart_health_name(&s);
	CHECK(!h || !strcmp(h, "ok") || !strcmp(h, "non-critical") || !strcmp(h, "critical") ||
	      !strcmp(h, "fatal"));
	nd_smart_temp_str(s.media_temp, t);
	CHECK(strlen(t) < sizeof(t));
	nd_smart_summary(&s, line, sizeof(line));
	CHECK(strlen(line) < sizeof(line));
	nd_smart_json(&j, &s);
	CHECK(j.depth == 0);
	return 0;
}
