/*
 * Host tests: the Internet checksum and readying a frame's headers for a
 * NIC that inserts IPv4 and TCP checksums (drivers/net/netdev_csum.c). A
 * small model of such a device (as struct netdev_csum describes it, which
 * is what the e1000's context descriptor carries) fills the checksums in,
 * and they must equal those computed from scratch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "netdev.h"

#define ETH_HLEN 14

/* The device's part: sum a range with the field in it, store the complement there. */
static void device_insert(u8 *frame, u32 start, u32 end, u32 field)
{
	u16 c = (u16)~netdev_csum_fold(netdev_csum_add(0, frame + start, end - start));

	frame[field] = (u8)(c >> 8);
	frame[field + 1] = (u8)c;
}

static void device_model(u8 *frame, u32 len, const struct netdev_csum *c)
{
	device_insert(frame, c->ip_start, c->ip_start + c->ip_len, c->ip_start + 10);
	if (c->tcp)
		device_insert(frame, c->tcp_start, len, c->tcp_sum);
}

static u16 be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

/*
 * An Ethernet frame: IPv4 10.0.2.15 -> 10.0.2.2 (id 0x1234, DF, TTL 255,
 * ihl words of header) carrying proto; TCP 10809 -> 40000, seq 1, ack 2,
 * PSH|ACK, window 65535 with payload; checksum fields zero. Its length.
 */
static u32 frame_build(u8 *f, u8 proto, unsigned int ihl, const char *payload)
{
	u32 plen = (u32)strlen(payload), ip_len = ihl * 4, l4_len = 20 + plen;
	u16 total = (u16)(ip_len + l4_len);
	static const u8 eth[ETH_HLEN] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02, 0x52, 0x54,
					   0x00, 0x12, 0x34, 0x56, 0x08, 0x00 };
	const u8 ip[20] = { (u8)(0x40 | ihl), 0, (u8)(total >> 8), (u8)total, 0x12, 0x34, 0x40, 0,
			    255, proto, 0, 0, 10, 0, 2, 15, 10, 0, 2, 2 };
	static const u8 tcp[20] = { 0x2a, 0x39, 0x9c, 0x40, 0, 0, 0, 1, 0, 0, 0, 2,
				    0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0 };

	memcpy(f, eth, ETH_HLEN);
	memcpy(f + ETH_HLEN, ip, 20);
	memset(f + ETH_HLEN + 20, 0, ip_len - 20);	/* options: end of list */
	memcpy(f + ETH_HLEN + ip_len, tcp, 20);
	memcpy(f + ETH_HLEN + ip_len + 20, payload, plen);
	return ETH_HLEN + total;
}

/* True if the IPv4 header and the TCP segment (with its pseudo-header) sum to 0xFFFF. */
static bool checksums_verify(const u8 *f, u32 len)
{
	const u8 *ip = f + ETH_HLEN;
	u32 ip_len = (ip[0] & 0x0F) * 4u, tcp_len = len - ETH_HLEN - ip_len;
	u8 pseudo[12];

	if (netdev_csum_fold(netdev_csum_add(0, ip, ip_len)) != 0xFFFF)
		return false;
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 6;
	pseudo[10] = (u8)(tcp_len >> 8);
	pseudo[11] = (u8)tcp_len;
	return netdev_csum_fold(netdev_csum_add(netdev_csum_add(0, pseudo, 12), ip + ip_len,
						 tcp_len)) == 0xFFFF;
}

static void internet_checksum_of_rfc1071_example(void **state)
{
	static const u8 b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	(void)state;
	assert_int_equal(netdev_csum_add(0, b, sizeof(b)), 0x2ddf0);
	assert_int_equal(netdev_csum_fold(0x2ddf0), 0xddf2);
	/* An odd length: the last byte is the high half of a word. */
	assert_int_equal(netdev_csum_add(0, b, 3), 0x0001 + 0xf200);
	assert_int_equal(netdev_csum_fold(0xFFFF + 0xFFFF), 0xFFFF);
}

/* Known answer (computed apart): the device's checksums equal a software stack's. */
static void tcp_frame_gets_pseudo_sum_and_device_fills_known_checksums(void **state)
{
	u8 f[128];
	struct netdev_csum c;
	u32 len = frame_build(f, 6, 5, "hello, pmemk!");

	(void)state;
	f[ETH_HLEN + 10] = 0xAB;	/* a stale IPv4 checksum: zeroed */
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), 0);
	assert_int_equal(c.ip_start, 14);
	assert_int_equal(c.ip_len, 20);
	assert_true(c.tcp);
	assert_int_equal(c.tcp_start, 34);
	assert_int_equal(c.tcp_sum, 50);
	assert_int_equal(be16(f + 24), 0);
	/* 0a00+020f+0a00+0202+0006+0021 */
	assert_int_equal(be16(f + 50), 0x0a00 + 0x020f + 0x0a00 + 0x0202 + 6 + 33);
	device_model(f, len, &c);
	assert_int_equal(be16(f + 24), 0x517e);
	assert_int_equal(be16(f + 50), 0x70f3);
	assert_true(checksums_verify(f, len));
}

/* Only the headers need be in the first buffer: the payload's bytes are never read. */
static void only_the_headers_are_read(void **state)
{
	u8 f[1600];
	struct netdev_csum c;
	char payload[1400];

	(void)state;
	memset(payload, 'p', sizeof(payload) - 1);
	payload[sizeof(payload) - 1] = 0;
	u32 len = frame_build(f, 6, 5, payload);
	assert_int_equal(netdev_csum_prepare(f, 54, len, &c), 0);
	device_model(f, len, &c);
	assert_true(checksums_verify(f, len));
	/* Headers beyond the first buffer: refused, the frame unchanged. */
	u8 before[64];
	memcpy(before, f, sizeof(before));
	assert_int_equal(netdev_csum_prepare(f, 51, len, &c), -EINVAL);
	assert_int_equal(netdev_csum_prepare(f, 30, len, &c), -EINVAL);
	assert_memory_equal(before, f, sizeof(before));
}

static void ip_options_move_the_tcp_header(void **state)
{
	u8 f[128];
	struct netdev_csum c;
	u32 len = frame_build(f, 6, 6, "x");

	(void)state;
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), 0);
	assert_int_equal(c.ip_len, 24);
	assert_int_equal(c.tcp_start, 38);
	assert_int_equal(c.tcp_sum, 54);
	device_model(f, len, &c);
	assert_true(checksums_verify(f, len));
}

/* UDP (lwIP sums it) and a fragment: the IPv4 header checksum only. */
static void udp_and_fragments_get_the_ip_checksum_only(void **state)
{
	u8 f[128];
	struct netdev_csum c;
	u32 len = frame_build(f, 17, 5, "dhcp");

	(void)state;
	f[ETH_HLEN + 20 + 6] = 0x5A;	/* where UDP's checksum lies: lwIP's, left alone */
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), 0);
	assert_false(c.tcp);
	assert_int_equal(f[ETH_HLEN + 20 + 6], 0x5A);
	device_model(f, len, &c);
	assert_int_equal(netdev_csum_fold(netdev_csum_add(0, f + ETH_HLEN, 20)), 0xFFFF);

	len = frame_build(f, 6, 5, "frag");
	f[ETH_HLEN + 6] = 0x20;	/* more fragments */
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), 0);
	assert_false(c.tcp);
}

static void non_ipv4_and_malformed_frames(void **state)
{
	u8 f[128], before[128];
	struct netdev_csum c;
	u32 len = frame_build(f, 6, 5, "abc");

	(void)state;
	memcpy(before, f, sizeof(f));
	f[12] = 0x08;
	f[13] = 0x06;	/* ARP */
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), -ENOENT);
	f[13] = 0x00;
	f[ETH_HLEN] = 0x65;	/* IPv6's version */
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), -EINVAL);
	f[ETH_HLEN] = 0x44;	/* a header of 16 bytes */
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), -EINVAL);
	f[ETH_HLEN] = 0x45;
	/* TCP with padding after the IPv4 total length: the device would sum it. */
	assert_int_equal(netdev_csum_prepare(f, len, len + 4, &c), -EINVAL);
	/* A total length past the frame, a TCP segment shorter than its header. */
	assert_int_equal(netdev_csum_prepare(f, len - 1, len - 1, &c), -EINVAL);
	f[ETH_HLEN + 3] = 20 + 19;
	assert_int_equal(netdev_csum_prepare(f, len, len, &c), -EINVAL);
	f[ETH_HLEN + 3] = before[ETH_HLEN + 3];
	assert_int_equal(netdev_csum_prepare(f, 10, len, &c), -EINVAL);
	assert_memory_equal(before, f, sizeof(f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(internet_checksum_of_rfc1071_example),
		cmocka_unit_test(tcp_frame_gets_pseudo_sum_and_device_fills_known_checksums),
		cmocka_unit_test(only_the_headers_are_read),
		cmocka_unit_test(ip_options_move_the_tcp_header),
		cmocka_unit_test(udp_and_fragments_get_the_ip_checksum_only),
		cmocka_unit_test(non_ipv4_and_malformed_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
