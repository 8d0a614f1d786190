/*
 * Host tests: DIMM health (nvdimm/smart.c, nd_smart.h). The Intel _DSM
 * function 1 output decoded field by field; the health word ndctl picks
 * (fatal over critical over non-critical); temperatures in sixteenths,
 * negative ones, as json-c prints them; which keys appear for which valid
 * flags and in ndctl's order; bad output (no status, a non-zero status, a
 * payload cut short) refused with its reason and shown as "unknown"; the
 * boot line's rule and summary; and `list -DH` through a DIMM's smart_ops.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "host.h"
#include "nd_json.h"
#include "nd_smart.h"
#include "nvdimm.h"
#include "unaligned.h"

/* The platform's default (tools/nvplatform/store.py default_smart), with its status. */
static void default_out(u8 out[ND_SMART_OUT_LEN])
{
	u8 *p = out + 4;

	memset(out, 0, ND_SMART_OUT_LEN);
	put_le32(p, ND_SMART_V_HEALTH | ND_SMART_V_SPARES | ND_SMART_V_USED | ND_SMART_V_MTEMP |
			    ND_SMART_V_CTEMP | ND_SMART_V_SHUTDOWN_COUNT | ND_SMART_V_SHUTDOWN);
	p[8] = 0;
	p[9] = 100;
	p[10] = 1;
	put_le16(p + 12, 30 * 16);
	put_le16(p + 14, 35 * 16);
	put_le32(p + 16, 3);
	p[31] = 0;
}

static const char *json_of(const struct nd_smart *s)
{
	struct nd_json j = { .first = true, .compact = true };

	host_console_reset();
	nd_json_open(&j, NULL, '{');
	nd_smart_json(&j, s);
	nd_json_close(&j, '}');
	return host_console_text();
}

static void smart_decode_default_payload(void **state)
{
	u8 out[ND_SMART_OUT_LEN];
	struct nd_smart s;
	char why[64] = "";

	(void)state;
	default_out(out);
	assert_int_equal(nd_smart_decode(out, sizeof(out), &s, why, sizeof(why)), 0);
	assert_true(s.known);
	assert_int_equal(s.spares, 100);
	assert_int_equal(s.life_used, 1);
	assert_int_equal(s.media_temp, 480);
	assert_int_equal(s.ctrl_temp, 560);
	assert_int_equal(s.shutdown_count, 3);
	assert_false(nd_smart_attention(&s));
	/* FACTS-4 §4: what ndctl 76.1 printed for this payload on Linux 6.1. */
	assert_string_equal(json_of(&s),
			    "{\"health\":{\"health_state\":\"ok\",\"temperature_celsius\":30.0,"
			    "\"controller_temperature_celsius\":35.0,\"spares_percentage\":100,"
			    "\"life_used_percentage\":1,\"shutdown_state\":\"clean\","
			    "\"shutdown_count\":3}}\n");
}

static void smart_health_words_take_the_worst_bit(void **state)
{
	static const struct {
		u8 bits;
		const char *name;
	} cases[] = { { 0, "ok" }, { 1, "non-critical" }, { 2, "critical" }, { 3, "critical" },
		      { 4, "fatal" }, { 7, "fatal" }, { 0xf8, "ok" } };
	u8 out[ND_SMART_OUT_LEN];
	struct nd_smart s;
	char why[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		default_out(out);
		out[4 + 8] = cases[i].bits;
		assert_int_equal(nd_smart_decode(out, sizeof(out), &s, why, sizeof(why)), 0);
		assert_string_equal(nd_smart_health_name(&s), cases[i].name);
		assert_int_equal(nd_smart_attention(&s), strcmp(cases[i].name, "ok") != 0);
	}
	/* Without its valid flag the health byte means nothing. */
	put_le32(out + 4, ND_SMART_V_SPARES);
	out[4 + 8] = 4;
	assert_int_equal(nd_smart_decode(out, sizeof(out), &s, why, sizeof(why)), 0);
	assert_null(nd_smart_health_name(&s));
	assert_false(nd_smart_attention(&s));
	assert_string_equal(json_of(&s), "{\"health\":{\"spares_percentage\":100}}\n");
}

static void smart_temperatures_print_like_json_c(void **state)
{
	static const struct {
		u16 raw;
		const char *text;
	} cases[] = { { 0, "0.0" }, { 480, "30.0" }, { 840, "52.5" }, { 481, "30.0625" },
		      { 484, "30.25" }, { 0x8008, "-0.5" }, { 0x8000 | 161, "-10.0625" },
		      { 0x8000, "-0.0" }, { 0x7fff, "2047.9375" }, { 0xffff, "-2047.9375" } };
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nd_smart_temp_str(cases[i].raw, buf);
		assert_string_equal(buf, cases[i].text);
	}
}

static void smart_alarms_and_dirty_shutdown(void **state)
{
	u8 out[ND_SMART_OUT_LEN];
	struct nd_smart s;
	char why[64], line[160];

	(void)state;
	default_out(out);
	put_le32(out + 4, get_le32(out + 4) | ND_SMART_V_ALARM);
	out[4 + 8] = ND_SMART_CRITICAL;
	out[4 + 11] = ND_SMART_MTEMP_TRIP | ND_SMART_SPARE_TRIP;
	put_le16(out + 4 + 12, 840);
	put_le32(out + 4 + 16, 4);
	out[4 + 31] = 1;
	assert_int_equal(nd_smart_decode(out, sizeof(out), &s, why, sizeof(why)), 0);
	assert_true(nd_smart_attention(&s));
	assert_string_equal(json_of(&s),
			    "{\"health\":{\"health_state\":\"critical\",\"temperature_celsius\":52.5,"
			    "\"controller_temperature_celsius\":35.0,\"spares_percentage\":100,"
			    "\"alarm_temperature\":true,\"alarm_controller_temperature\":false,"
			    "\"alarm_spares\":true,\"life_used_percentage\":1,"
			    "\"shutdown_state\":\"dirty\",\"shutdown_count\":4}}\n");
	nd_smart_summary(&s, line, sizeof(line));
	assert_string_equal(line, "health critical, media 52.5 C, controller 35.0 C, spares 100%, "
				  "life used 1%, shutdown dirty, 4 unsafe shutdowns");
	/* A short buffer cuts the line, never overruns it. */
	nd_smart_summary(&s, line, 20);
	assert_int_equal(strlen(line), 19);
	assert_memory_equal(line, "health critical, me", 19);
	/* Health ok but dirty: still a line. */
	out[4 + 8] = 0;
	assert_int_equal(nd_smart_decode(out, sizeof(out), &s, why, sizeof(why)), 0);
	assert_true(nd_smart_attention(&s));
}

static void smart_bad_output_is_unknown(void **state)
{
	u8 out[ND_SMART_OUT_LEN];
	struct nd_smart s;
	char why[64];

	(void)state;
	default_out(out);
	assert_int_equal(nd_smart_decode(out, 0, &s, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "0 bytes, no status");
	assert_int_equal(nd_smart_decode(out, 3, &s, why, sizeof(why)), -EINVAL);
	assert_false(s.known);
	assert_int_equal(nd_smart_decode(out, 4, &s, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "4 bytes, want 132 (status and payload)");
	assert_int_equal(nd_smart_decode(out, ND_SMART_OUT_LEN - 1, &s, why, sizeof(why)), -EINVAL);
	assert_false(s.known);
	assert_false(nd_smart_attention(&s));
	put_le32(out, 1);	/* "not supported" */
	assert_int_equal(nd_smart_decode(out, sizeof(out), &s, why, sizeof(why)), -EIO);
	assert_string_equal(why, "status 0x1");
	assert_false(s.known);
	assert_string_equal(json_of(&s), "{\"health\":{\"health_state\":\"unknown\"}}\n");
	nd_smart_summary(&s, why, sizeof(why));
	assert_string_equal(why, "health unknown");
	/* Longer than the payload (vendors may append): the first 132 bytes count. */
	u8 more[ND_SMART_OUT_LEN + 16] = { 0 };
	default_out(more);
	assert_int_equal(nd_smart_decode(more, sizeof(more), &s, why, sizeof(why)), 0);
	assert_string_equal(nd_smart_health_name(&s), "ok");
}

/* A provider's smart_ops: the payload of `fake_out`, or a failure. */
static u8 fake_out[ND_SMART_OUT_LEN];
static int fake_read(struct nvdimm *d, struct nd_smart *s)
{
	char why[64];

	(void)d;
	return nd_smart_decode(fake_out, sizeof(fake_out), s, why, sizeof(why));
}
static const struct nd_smart_ops fake_ops = { fake_read };

static void smart_list_dh_nests_health_in_the_dimm(void **state)
{
	struct nd_bus *bus;
	struct nvdimm d = { .handle = 1, .has_dcr = true, .smart_ops = &fake_ops };

	(void)state;
	nd_reset();
	bus = nd_bus_register("nfit");
	snprintf(d.unique_id, sizeof(d.unique_id), "8089-a2-1918-5e000101");
	assert_non_null(nvdimm_create(bus, &d));
	default_out(fake_out);
	host_console_reset();
	nd_list(ND_LIST_DIMMS | ND_LIST_HEALTH, NULL, NULL);
	assert_string_equal(host_console_text(),
			    "[\n"
			    "  {\n"
			    "    \"dev\":\"nmem0\",\n"
			    "    \"id\":\"8089-a2-1918-5e000101\",\n"
			    "    \"handle\":1,\n"
			    "    \"phys_id\":0,\n"
			    "    \"health\":{\n"
			    "      \"health_state\":\"ok\",\n"
			    "      \"temperature_celsius\":30.0,\n"
			    "      \"controller_temperature_celsius\":35.0,\n"
			    "      \"spares_percentage\":100,\n"
			    "      \"life_used_percentage\":1,\n"
			    "      \"shutdown_state\":\"clean\",\n"
			    "      \"shutdown_count\":3\n"
			    "    }\n"
			    "  }\n"
			    "]\n");
	/* Without -H, no health; with a failing read, "unknown". */
	host_console_reset();
	nd_list(ND_LIST_DIMMS, NULL, NULL);
	assert_null(strstr(host_console_text(), "health"));
	put_le32(fake_out, 2);
	host_console_reset();
	nd_list(ND_LIST_DIMMS | ND_LIST_HEALTH, NULL, NULL);
	assert_non_null(strstr(host_console_text(), "\"health\":{\n      \"health_state\":\"unknown\"\n    }"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(smart_decode_default_payload),
		cmocka_unit_test(smart_health_words_take_the_worst_bit),
		cmocka_unit_test(smart_temperatures_print_like_json_c),
		cmocka_unit_test(smart_alarms_and_dirty_shutdown),
		cmocka_unit_test(smart_bad_output_is_unknown),
		cmocka_unit_test(smart_list_dh_nests_health_in_the_dimm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
