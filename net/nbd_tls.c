/*
 * The NBD server's TLS (issue 30; FACTS-3 §1): what it offers (nbd.tls=),
 * and each client's link between TCP and its protocol engine once the
 * client has sent STARTTLS. The engine (net/nbd_handshake.c) decides when
 * TLS starts and what a client without it may do; a PSK session of
 * include/tls_server.h runs TLS 1.2 over mbedTLS; the keys are nbd_keys.c's (the
 * boot file nbd.psk). This file joins them for nbd_server.c:
 *
 *   TCP bytes in  -> nbd_tls_in (ciphertext, copied into the session)
 *   engine input  <- nbd_tls_plain / nbd_tls_plain_used (decrypted)
 *   engine output -> nbd_tls_encrypt (a record at a time)
 *   TCP bytes out <- nbd_tls_out / nbd_tls_out_sent (ciphertext)
 *
 * Suites (tls_server.h): forward-secret ECDHE-PSK first, ChaCha20-Poly1305,
 * the suite GnuTLS clients (libnbd, QEMU) offer with ECDHE-PSK and the
 * fastest without AES instructions; DHE-PSK after it. Plain PSK suites
 * (nbd.tls-plain-psk=on) save the key exchange, a few milliseconds a
 * connection, but whoever learns the key later can decrypt every recorded
 * session: off by default.
 *
 * Under TLS READ data is always copied: the cipher reads every byte and the
 * record goes out of the session's buffer, so nothing points into pmem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbd_keys.h"
#include "nbd_priv.h"
#include "params.h"
#include "printk.h"
#include "tls_server.h"

#define PLAIN_BUF (16u << 10)	/* decrypted bytes a client may have waiting: one record */

/* nbd.tls=: unset (-1) means require with keys, off without. */
static int tls_param = -1;
KERNEL_PARAM_CHOICE("nbd.tls", tls_param, 2,
		    "off: no TLS; on: STARTTLS offered, exports with an identity list need it; "
		    "require: nothing without it (default when nbd.psk has keys, else off)",
		    "off", "on", "require");

static int plain_psk;
KERNEL_PARAM_CHOICE("nbd.tls-plain-psk", plain_psk, 1,
		    "on: also the PSK suites without forward secrecy; off (default): ECDHE-PSK and DHE-PSK only",
		    "off", "on");

enum nbd_tls nbd_tls_mode = NBD_TLS_OFF;

static const char *const mode_names[] = { "off", "on", "require" };

static void tls_resolve(void)
{
	nbd_tls_mode = tls_param >= 0 ? (enum nbd_tls)tls_param :
		       nbd_psk_count() ? NBD_TLS_REQUIRE : NBD_TLS_OFF;
}

enum nbd_tls nbd_tls_policy(void)
{
	tls_resolve();
	return nbd_tls_mode;
}

static int tls_init(void)
{
	unsigned int keys = nbd_psk_count();

	tls_resolve();
	if (nbd_tls_mode == NBD_TLS_OFF) {
		if (keys)
			pr_warn("nbd: nbd.tls=off: the %u TLS identit%s from nbd.psk are not used\n", keys,
				keys == 1 ? "y" : "ies");
		return 0;
	}
	if (!keys) {
		pr_err("nbd: nbd.tls=%s but no TLS keys (hand a psktool file in as boot file nbd.psk): not serving\n",
		       mode_names[nbd_tls_mode]);
		return -ENOENT;
	}
	int err = tls_server_init();
	if (err == -ENODEV) {
		pr_err("nbd: TLS needs RDSEED or RDRAND, which this CPU lacks (QEMU: -cpu max): not serving\n");
		return err;
	}
	if (err) {
		pr_err("nbd: TLS could not seed its random generator from %s (%d): not serving\n",
		       tls_server_entropy() ? tls_server_entropy() : "the CPU", err);
		return err;
	}
	pr_info("nbd: TLS %s: TLS 1.2 with pre-shared keys (%s), %u identit%s, entropy from %s\n",
		nbd_tls_mode == NBD_TLS_REQUIRE ? "required" : "offered, not required",
		plain_psk ? "ECDHE-PSK, DHE-PSK, PSK" : "ECDHE-PSK, DHE-PSK: forward secret", keys,
		keys == 1 ? "y" : "ies", tls_server_entropy());
	return 0;
}

int nbd_tls_setup(void)
{
	static int result = 1;	/* 1: not yet; the lines are printed once */

	if (result == 1)
		result = tls_init();
	return result;
}

/* Append name to a list of names ("a, b"). */
static void name_add(char *list, size_t len, const char *name)
{
	size_t n = strlen(list);

	snprintf(list + n, len - n, "%s%s", n ? ", " : "", name);
}

void nbd_tls_warn_open(void)
{
	char rw[160] = "", ro[160] = "";

	tls_resolve();
	if (nbd_allow_list_set() || nbd_tls_mode == NBD_TLS_REQUIRE)
		return;
	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++) {
		const struct srv_export *e = &nbd_exports_tab[i];
		if (e->used && !e->ids.n)	/* an identity list needs TLS in any mode */
			name_add(e->exp.ro ? ro : rw, sizeof(rw), e->name);
	}
	if (!rw[0] && !ro[0])
		return;
	pr_warn("nbd: no TLS%s and no nbd.allow=: anyone who reaches port %d can %s%s%s%s%s\n",
		nbd_tls_mode == NBD_TLS_ON ? " required" : "", NBD_PORT, rw[0] ? "write " : "", rw,
		rw[0] && ro[0] ? " and " : "", ro[0] ? "read " : "", ro);
}

static const struct tls_psk_keys psk_keys = { nbd_psk_lookup, NULL };

int nbd_tls_start(struct nbd_tls_link *l)
{
	l->plain = malloc(PLAIN_BUF);
	l->t = l->plain ? tls_session_new_psk(&psk_keys, plain_psk) : NULL;
	l->plain_off = l->plain_len = 0;
	if (!l->t) {
		free(l->plain);
		l->plain = NULL;
		return -ENOMEM;
	}
	return 0;
}

void nbd_tls_stop(struct nbd_tls_link *l)
{
	tls_session_free(l->t);
	if (l->plain)
		memset(l->plain, 0, PLAIN_BUF);
	free(l->plain);
	memset(l, 0, sizeof(*l));
}

u32 nbd_tls_in(struct nbd_tls_link *l, const u8 *p, u32 n)
{
	return (u32)tls_session_put(l->t, p, n);
}

static int tls_plain(struct nbd_tls_link *l, const u8 **p)
{
	if (!l->plain_len) {
		int n = tls_session_read(l->t, l->plain, PLAIN_BUF);
		if (n <= 0)
			return n;
		l->plain_off = 0;
		l->plain_len = (u32)n;
	}
	*p = l->plain + l->plain_off;
	return (int)l->plain_len;
}

int nbd_tls_to_engine(struct nbd_tls_link *l, struct nbd_conn *c)
{
	int moved = 0;
	const u8 *p;

	for (;;) {
		int n = tls_plain(l, &p);
		if (n < 0)
			return n;
		if (!l->up && tls_session_ready(l->t)) {
			l->up = true;	/* the engine hears of it before any plaintext */
			nbd_conn_tls_started(c, tls_session_identity(l->t));
			moved = NBD_TLS_UP;
		}
		if (!n)
			return moved;
		u32 k = (u32)nbd_conn_input(c, p, (size_t)n);
		l->plain_off += k;
		l->plain_len -= k;
		if (!k)
			return moved;
		moved = moved ? moved : 1;
	}
}

bool nbd_tls_from_engine(struct nbd_tls_link *l, struct nbd_conn *c)
{
	const u8 *p;
	u32 n = nbd_conn_output(c, &p);

	if (!n || !(n = (u32)tls_session_write(l->t, p, n)))
		return false;
	nbd_conn_sent(c, n);
	return true;
}

u32 nbd_tls_out(struct nbd_tls_link *l, const u8 **p)
{
	return (u32)tls_session_out(l->t, p);
}

void nbd_tls_out_sent(struct nbd_tls_link *l, u32 n)
{
	tls_session_sent(l->t, n);
}

const char *nbd_tls_identity(const struct nbd_tls_link *l)
{
	return tls_session_identity(l->t);
}

const char *nbd_tls_suite(const struct nbd_tls_link *l)
{
	return tls_session_suite(l->t);
}

const char *nbd_tls_why(const struct nbd_tls_link *l)
{
	return tls_session_why(l->t);
}

void nbd_tls_close_notify(struct nbd_tls_link *l)
{
	tls_session_close_notify(l->t);
}
