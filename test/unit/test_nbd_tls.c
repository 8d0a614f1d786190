/*
 * Host tests: STARTTLS and export policy in the NBD engine
 * (net/nbd_handshake.c; FACTS-3 §1.1, doc/proto.md "TLS support"), driven
 * as a client would over the fake transport (test/unit/nbd_tests.c), the
 * glue's part played by hand: the ClientHello that follows a STARTTLS in
 * the same segment is left unconsumed, STARTTLS refused with TLS off, with
 * data and once TLS is up; NBD_TLS_REQUIRE refuses every option with
 * ERR_TLS_REQD and closes on EXPORT_NAME until TLS is up; may_open hides
 * exports from LIST and refuses INFO, GO and EXPORT_NAME of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nbd.h"
#include "nbd_tests.h"

#define REP_ACK 1
#define REP_SERVER 2
#define REP_INFO 3
#define ERR_POLICY 0x80000002u
#define ERR_INVALID 0x80000003u
#define ERR_TLS_REQD 0x80000005u

/* The start of a TLS record: a ClientHello the option parser must never see. */
static const u8 client_hello[] = { 0x16, 0x03, 0x01, 0x00, 0xc4, 0x01, 0x00, 0x00, 0xc0, 0x03, 0x03 };

/* pmem0 only for the TLS identity "alice"; pmem1m for anyone. */
static bool alice_only(void *arg, const struct nbd_export *e, const char *identity)
{
	(void)arg;
	return e != &devs[0].exp || (identity && !strcmp(identity, "alice"));
}

static const struct nbd_export *lookup(void *arg, const char *name)
{
	(void)arg;
	for (unsigned int i = 0; i < 2; i++)
		if (!strcmp(devs[i].exp.name, name))
			return &devs[i].exp;
	return NULL;
}

static const struct nbd_export *nth(void *arg, unsigned int i)
{
	(void)arg;
	return i < 2 ? &devs[i].exp : NULL;
}

static const struct nbd_exports policy = { .lookup = lookup, .nth = nth, .may_open = alice_only };

/* A fresh connection to the policy table offering `tls`, greeting read, flags sent. */
static void start(enum nbd_tls tls)
{
	nbd_conn_free(&conn);
	nbd_test_start(&policy);
	conn.tls = tls;
	take(18);
	client_flags(3);
}

/* STARTTLS and the ClientHello in one segment: only the option is consumed. */
static void starttls_with_hello(void)
{
	u8 seg[16 + sizeof(client_hello)];

	be(seg, 0x49484156454F5054ULL, 8);
	be(seg + 8, 5, 4);
	be(seg + 12, 0, 4);
	memcpy(seg + 16, client_hello, sizeof(client_hello));
	assert_int_equal(nbd_conn_input(&conn, seg, sizeof(seg)), 16);
	assert_true(nbd_conn_starttls(&conn));
	/* Nothing more is taken, however often the glue offers it. */
	assert_int_equal(nbd_conn_input(&conn, seg + 16, sizeof(client_hello)), 0);
	drain();
	assert_int_equal(nbd_conn_input(&conn, seg + 16, sizeof(client_hello)), 0);
	u32 rlen;
	const u8 *d;
	assert_int_equal(opt_reply(5, &rlen, &d), REP_ACK);
	assert_int_equal(rlen, 0);
	assert_int_equal(got_pos, got_len);
}

/* The LIST replies' names, in order, into names (n at most); returns how many. */
static unsigned int list(const char **names, unsigned int n)
{
	u32 rlen, type;
	const u8 *d;
	unsigned int k = 0;

	send_opt(3, NULL, 0);
	while ((type = opt_reply(3, &rlen, &d)) == REP_SERVER) {
		assert_int_equal(rd_be(d, 4), rlen - 4);
		assert_true(k < n);
		names[k++] = rlen - 4 == 5 && !memcmp(d + 4, "pmem0", 5) ? "pmem0" : "pmem1m";
	}
	assert_int_equal(type, REP_ACK);
	return k;
}

/* GO to name: the type of its first reply (its other replies up to the ACK skipped). */
static u32 go(const char *name)
{
	u8 b[64];
	u32 len, rlen, type;
	const u8 *d;

	go_body(b, &len, name, 0, NULL);
	send_opt(7, b, len);
	type = opt_reply(7, &rlen, &d);
	if (type == ERR_POLICY || type == ERR_TLS_REQD)
		assert_memory_equal(d, "export not open to this client", rlen);
	if (type == REP_INFO)
		while (opt_reply(7, &rlen, &d) != REP_ACK)
			;
	return type;
}

static void nbd_starttls_leaves_the_client_hello_unconsumed(void **state)
{
	(void)state;
	start(NBD_TLS_ON);
	send_opt(8, NULL, 0);	/* STRUCTURED_REPLY before TLS: forgotten after it */
	u32 rlen;
	const u8 *d;
	assert_int_equal(opt_reply(8, &rlen, &d), REP_ACK);
	assert_true(conn.structured);
	starttls_with_hello();
	assert_string_equal(conn.identity, "");
	nbd_conn_tls_started(&conn, "alice");
	assert_false(nbd_conn_starttls(&conn));
	assert_true(conn.tls_up);
	assert_false(conn.structured);
	assert_string_equal(conn.identity, "alice");
	/* Decrypted options now: alice sees and opens pmem0. */
	const char *names[4];
	assert_int_equal(list(names, 4), 2);
	assert_int_equal(go("pmem0"), REP_INFO);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
	assert_ptr_equal(conn.exp, &devs[0].exp);
	send_req(0, 0, 7, 0, 512);
	assert_int_equal(simple_reply(7), 0);
	assert_memory_equal(take(512), devs[0].mem, 512);
}

static void nbd_starttls_refused_when_off_with_data_or_twice(void **state)
{
	u32 rlen;
	const u8 *d;

	(void)state;
	start(NBD_TLS_OFF);
	send_opt(5, NULL, 0);
	assert_int_equal(opt_reply(5, &rlen, &d), ERR_POLICY);
	assert_false(nbd_conn_starttls(&conn));
	/* NOTLS: a refused export is ERR_POLICY, never ERR_TLS_REQD. */
	assert_int_equal(go("pmem0"), ERR_POLICY);

	start(NBD_TLS_ON);
	send_opt(5, "x", 1);	/* STARTTLS takes no data */
	assert_int_equal(opt_reply(5, &rlen, &d), ERR_INVALID);
	assert_false(nbd_conn_starttls(&conn));
	starttls_with_hello();
	nbd_conn_tls_started(&conn, "bob");
	send_opt(5, NULL, 0);	/* again, TLS up */
	assert_int_equal(opt_reply(5, &rlen, &d), ERR_INVALID);
	assert_false(nbd_conn_starttls(&conn));
	/* bob has TLS but is not on pmem0's list: ERR_POLICY (never TLS_REQD once up). */
	assert_int_equal(go("pmem0"), ERR_POLICY);
	assert_int_equal(go("pmem1m"), REP_INFO);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

static void nbd_tls_required_refuses_every_option_until_tls(void **state)
{
	u8 b[64];
	u32 len, rlen;
	const u8 *d;
	u16 reqs[] = { 1 };

	(void)state;
	start(NBD_TLS_REQUIRE);
	go_body(b, &len, "pmem1m", 1, reqs);
	send_opt(6, b, len);	/* INFO */
	assert_int_equal(opt_reply(6, &rlen, &d), ERR_TLS_REQD);
	send_opt(7, b, len);	/* GO */
	assert_int_equal(opt_reply(7, &rlen, &d), ERR_TLS_REQD);
	assert_int_equal(conn.state, NBD_S_OPTIONS);
	send_opt(3, NULL, 0);	/* LIST */
	assert_int_equal(opt_reply(3, &rlen, &d), ERR_TLS_REQD);
	send_opt(8, NULL, 0);	/* STRUCTURED_REPLY */
	assert_int_equal(opt_reply(8, &rlen, &d), ERR_TLS_REQD);
	assert_false(conn.structured);
	send_opt(0x7777, "junk", 4);
	assert_int_equal(opt_reply(0x7777, &rlen, &d), ERR_TLS_REQD);
	/* Too long to read: skipped whole, then refused the same way. */
	u8 *big = calloc(1, 10000);
	send_opt(6, big, 10000);
	free(big);
	assert_int_equal(opt_reply(6, &rlen, &d), ERR_TLS_REQD);
	assert_int_equal(got_pos, got_len);
	/* Then TLS, and the same GO works. */
	starttls_with_hello();
	nbd_conn_tls_started(&conn, "carol");
	assert_int_equal(go("pmem1m"), REP_INFO);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);

	start(NBD_TLS_REQUIRE);
	send_opt(1, "pmem1m", 6);	/* EXPORT_NAME cannot fail: closes */
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "EXPORT_NAME before STARTTLS, TLS is required");
	assert_int_equal(got_pos, got_len);

	start(NBD_TLS_REQUIRE);
	send_opt(2, NULL, 0);	/* ABORT is still answered */
	assert_int_equal(opt_reply(2, &rlen, &d), REP_ACK);
	assert_true(nbd_conn_done(&conn));
}

static void nbd_may_open_hides_and_refuses_exports(void **state)
{
	const char *names[4];

	(void)state;
	/* Without TLS (TLS offered): pmem0 is left out of LIST, GO says TLS_REQD. */
	start(NBD_TLS_ON);
	assert_int_equal(list(names, 4), 1);
	assert_string_equal(names[0], "pmem1m");
	assert_int_equal(go("pmem0"), ERR_TLS_REQD);
	assert_int_equal(conn.state, NBD_S_OPTIONS);
	send_opt(1, "pmem0", 5);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "EXPORT_NAME of an export not open to this client");

	/* With TLS as someone else: the same, ERR_POLICY. */
	start(NBD_TLS_ON);
	starttls_with_hello();
	nbd_conn_tls_started(&conn, "mallory");
	assert_int_equal(list(names, 4), 1);
	assert_int_equal(go("pmem0"), ERR_POLICY);
	send_opt(1, "pmem0", 5);
	assert_true(nbd_conn_done(&conn));

	/* As alice: both, and EXPORT_NAME opens pmem0. */
	start(NBD_TLS_REQUIRE);
	starttls_with_hello();
	nbd_conn_tls_started(&conn, "alice");
	assert_int_equal(list(names, 4), 2);
	assert_string_equal(names[0], "pmem0");
	send_opt(1, "pmem0", 5);
	assert_int_equal(rd_be(take(8), 8), DEV_SIZE);
	take(2);
	assert_int_equal(conn.state, NBD_S_TRANSMISSION);
}

static void nbd_tls_started_out_of_turn_or_too_long_closes(void **state)
{
	char longid[NBD_IDENTITY_MAX + 2];

	(void)state;
	start(NBD_TLS_ON);
	nbd_conn_tls_started(&conn, "alice");	/* no STARTTLS */
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "TLS started out of turn");
	assert_false(conn.tls_up);

	start(NBD_TLS_ON);
	u8 seg[16];
	be(seg, 0x49484156454F5054ULL, 8);
	be(seg + 8, 5, 4);
	be(seg + 12, 0, 4);
	assert_int_equal(nbd_conn_input(&conn, seg, 16), 16);
	nbd_conn_tls_started(&conn, "alice");	/* the ACK not sent yet */
	assert_string_equal(conn.close_reason, "TLS started out of turn");

	start(NBD_TLS_ON);
	starttls_with_hello();
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	nbd_conn_tls_started(&conn, longid);
	assert_true(nbd_conn_done(&conn));
	assert_string_equal(conn.close_reason, "TLS identity longer than 63 characters");
	assert_false(conn.tls_up);

	/* The glue's handshake failed. */
	start(NBD_TLS_ON);
	starttls_with_hello();
	nbd_conn_close(&conn, "TLS handshake failed");
	assert_true(nbd_conn_done(&conn));
	assert_false(nbd_conn_starttls(&conn));
	assert_string_equal(conn.close_reason, "TLS handshake failed");
	assert_int_equal(nbd_conn_input(&conn, client_hello, sizeof(client_hello)), 0);

	/* No identity (NULL): TLS is up, the identity is empty, lists refuse it. */
	start(NBD_TLS_ON);
	starttls_with_hello();
	nbd_conn_tls_started(&conn, NULL);
	assert_true(conn.tls_up);
	assert_string_equal(conn.identity, "");
	assert_int_equal(go("pmem0"), ERR_POLICY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(nbd_starttls_leaves_the_client_hello_unconsumed,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_starttls_refused_when_off_with_data_or_twice,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_tls_required_refuses_every_option_until_tls,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_may_open_hides_and_refuses_exports,
						nbd_test_setup, nbd_test_teardown),
		cmocka_unit_test_setup_teardown(nbd_tls_started_out_of_turn_or_too_long_closes,
						nbd_test_setup, nbd_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
