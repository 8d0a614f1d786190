/* Host tests: Linux's ip= syntax (net/ipconfig.c) and dotted-quad parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "net.h"

static char err[200];

static void ipv4_parse_takes_dotted_quads_only(void **state)
{
	u32 a = 0;

	(void)state;
	assert_true(ipv4_parse("10.0.2.15", &a));
	assert_int_equal(a, 0x0a00020f);
	assert_true(ipv4_parse("255.255.255.0", &a));
	assert_int_equal(a, 0xffffff00);
	assert_true(ipv4_parse("0.0.0.0", &a));
	assert_int_equal(a, 0);
	a = 7;
	assert_false(ipv4_parse("10.0.2.256", &a));
	assert_false(ipv4_parse("10.0.2", &a));
	assert_false(ipv4_parse("10.0.2.15.1", &a));
	assert_false(ipv4_parse("10.0.2.", &a));
	assert_false(ipv4_parse("10..2.15", &a));
	assert_false(ipv4_parse("1000.0.2.15", &a));
	assert_false(ipv4_parse("0010.0.2.15", &a));
	assert_false(ipv4_parse("10.0.2.15 ", &a));
	assert_false(ipv4_parse("", &a));
	assert_false(ipv4_parse("a.b.c.d", &a));
	assert_int_equal(a, 7);	/* untouched on failure */
}

static void cidr_lists_parse_and_match(void **state)
{
	struct net_cidr l[4];
	unsigned int n = 0;
	char buf[24];

	(void)state;
	assert_int_equal(cidr_list_parse("10.0.2.2/32,192.168.0.0/16,172.16.1.1", l, 4, &n, err,
					 sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].addr, 0x0a000202);
	assert_int_equal(l[0].mask, 0xffffffff);
	assert_int_equal(l[1].mask, 0xffff0000);
	assert_int_equal(l[2].mask, 0xffffffff);	/* no length: one host */
	assert_true(cidr_list_match(l, n, 0x0a000202));
	assert_false(cidr_list_match(l, n, 0x0a000203));
	assert_true(cidr_list_match(l, n, 0xc0a8ffff));
	assert_true(cidr_list_match(l, n, 0xc0a80000));
	assert_false(cidr_list_match(l, n, 0xc0a90000));
	assert_true(cidr_list_match(l, n, 0xac100101));
	assert_false(cidr_list_match(l, 0, 0x0a000202));	/* an empty list matches nothing */
	cidr_format(&l[1], buf, sizeof(buf));
	assert_string_equal(buf, "192.168.0.0/16");
	/* /0 is everyone, /31 two hosts. */
	assert_int_equal(cidr_list_parse("0.0.0.0/0", l, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(l[0].mask, 0);
	assert_true(cidr_list_match(l, n, 0xffffffff));
	assert_true(cidr_list_match(l, n, 0));
	cidr_format(&l[0], buf, sizeof(buf));
	assert_string_equal(buf, "0.0.0.0/0");
	assert_int_equal(cidr_list_parse("192.0.2.0/31", l, 4, &n, err, sizeof(err)), 0);
	assert_true(cidr_list_match(l, n, 0xc0000201));
	assert_false(cidr_list_match(l, n, 0xc0000202));
	/* Exactly max entries fit. */
	assert_int_equal(cidr_list_parse("1.0.0.0/8,2.0.0.0/8,3.0.0.0/8,4.0.0.0/8", l, 4, &n, err,
					 sizeof(err)), 0);
	assert_int_equal(n, 4);
}

static void cidr_lists_refuse_bad_entries(void **state)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "", "empty list" },
		{ "10.0.2.0/24,", "entry 2: empty" },
		{ ",10.0.2.0/24", "entry 1: empty" },
		{ "10.0.2.0/24,,10.0.3.0/24", "entry 2: empty" },
		{ "10.0.2.0/33", "the prefix length is not 0-32" },
		{ "10.0.2.0/", "the prefix length is not 0-32" },
		{ "10.0.2.0/-1", "the prefix length is not 0-32" },
		{ "10.0.2.0/024", "the prefix length is not 0-32" },
		{ "10.0.2.0/2x", "the prefix length is not 0-32" },
		{ "10.0.2/24", "is not an IPv4 address" },
		{ "host.example/24", "is not an IPv4 address" },
		{ "10.0.2.2/24", "has bits set past the prefix" },
		{ "0.0.0.1/0", "has bits set past the prefix" },
		{ "255.255.255.255.255.255/32", "too long" },
		{ "1.0.0.0/8,2.0.0.0/8,3.0.0.0/8,4.0.0.0/8,5.0.0.0/8", "more than 4 entries" },
	};
	struct net_cidr l[4];
	unsigned int n = 77;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(cidr_list_parse(bad[i].in, l, 4, &n, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].in, err, bad[i].why);
	}
	assert_int_equal(n, 77);	/* untouched on failure */
}

static void ipconfig_linux_static_example(void **state)
{
	struct ipconfig c;

	(void)state;
	assert_int_equal(ipconfig_parse("10.0.2.15::10.0.2.2:255.255.255.0::eth0:off", &c, err,
					sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_STATIC);
	assert_int_equal(c.addr, 0x0a00020f);
	assert_int_equal(c.server, 0);
	assert_int_equal(c.gw, 0x0a000202);
	assert_int_equal(c.mask, 0xffffff00);
	assert_string_equal(c.hostname, "");
	assert_string_equal(c.device, "eth0");
}

static void ipconfig_keywords(void **state)
{
	struct ipconfig c;

	(void)state;
	const char *dhcp[] = { "dhcp", "on", "any", "both", "" };
	for (unsigned int i = 0; i < ARRAY_SIZE(dhcp); i++) {
		assert_int_equal(ipconfig_parse(dhcp[i], &c, err, sizeof(err)), 0);
		assert_int_equal(c.mode, IPCONFIG_DHCP);
	}
	assert_int_equal(ipconfig_parse(NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_DHCP);
	assert_int_equal(ipconfig_parse("off", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_OFF);
	assert_int_equal(ipconfig_parse("none", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_OFF);
	/* Fields with autoconf dhcp: DHCP, the device kept. */
	assert_int_equal(ipconfig_parse(":::::eth1:dhcp", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_DHCP);
	assert_string_equal(c.device, "eth1");
}

static void ipconfig_defaults_of_a_short_static_value(void **state)
{
	struct ipconfig c;

	(void)state;
	/* An address alone: static, classful netmask (A, B, C). */
	assert_int_equal(ipconfig_parse("10.0.2.15", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_STATIC);
	assert_int_equal(c.mask, 0xff000000);
	assert_int_equal(ipconfig_parse("172.16.1.2", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mask, 0xffff0000);
	assert_int_equal(ipconfig_parse("192.168.1.2::::myhost", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mask, 0xffffff00);
	assert_string_equal(c.hostname, "myhost");
	assert_int_equal(ipconfig_parse("10.0.2.15::::::static", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, IPCONFIG_STATIC);
}

static void ipconfig_bad_values_name_the_field(void **state)
{
	static const struct {
		const char *val, *msg;
	} bad[] = {
		{ "10.0.2.300::10.0.2.2:255.255.255.0::eth0:off", "client-ip is not an IPv4 address" },
		{ "10.0.2.15:x::255.255.255.0::eth0:off", "server-ip is not an IPv4 address" },
		{ "10.0.2.15::10.0.2:255.255.255.0::eth0:off", "gw-ip is not an IPv4 address" },
		{ "10.0.2.15::10.0.2.2:255.255.0.255::eth0:off", "netmask is not a run of ones" },
		{ "10.0.2.15::10.0.2.2:255.255.255.0::eth0:bootp", "autoconf 'bootp' is not" },
		{ "10.0.2.15::10.0.3.2:255.255.255.0::eth0:off", "gateway is not on the client's network" },
		{ "::10.0.2.2:255.255.255.0::eth0:off", "a static configuration needs client-ip" },
		{ "10.0.2.15:::::eth0123456789abcdef:off", "too long" },
		{ "10.0.2.15::10.0.2.2:0.0.0.0::eth0:off", NULL },	/* empty-looking mask: class default */
	};
	struct ipconfig c;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		int rc = ipconfig_parse(bad[i].val, &c, err, sizeof(err));
		if (!bad[i].msg) {
			assert_int_equal(rc, 0);
			assert_int_equal(c.mask, 0xff000000);
			continue;
		}
		assert_int_equal(rc, -22);
		if (!strstr(err, bad[i].msg) || strncmp(err, "ip=", 3))
			fail_msg("ip=%s: got \"%s\", want \"%s\"", bad[i].val, err, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipv4_parse_takes_dotted_quads_only),
		cmocka_unit_test(cidr_lists_parse_and_match),
		cmocka_unit_test(cidr_lists_refuse_bad_entries),
		cmocka_unit_test(ipconfig_linux_static_example),
		cmocka_unit_test(ipconfig_keywords),
		cmocka_unit_test(ipconfig_defaults_of_a_short_static_value),
		cmocka_unit_test(ipconfig_bad_values_name_the_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
