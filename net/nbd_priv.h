/*
 * What the NBD server's files share (net/ only): the exports table
 * (nbd_exports.c), each export's view of its device (nbd_pmem.c), the
 * connections (nbd_server.c), who may connect and how many (nbd_admit.c)
 * and the commands that configure and list them (nbd_cmds.c).
 */
#ifndef PMEMK_NBD_PRIV_H
#define PMEMK_NBD_PRIV_H

#include <stddef.h>

#include "nbd.h"
#include "nbd_wcache.h"
#include "nd_dax.h"
#include "pmem.h"

#define NBD_MAX_EXPORTS 8
#define NBD_MAX_CLIENTS 32	/* connection slots */
#define NBD_EXPORT_IDS 8	/* TLS identities an export may name */
#define NBD_DEV_NAME 24		/* a device's name, with its NUL */
/* The longest spec: DEV:ro@ and every identity, '+' between them. */
#define NBD_EXPORT_SPEC_MAX (NBD_DEV_NAME - 1 + 4 + NBD_EXPORT_IDS * (NBD_IDENTITY_MAX + 1) - 1)

/* Who may open an export: these TLS identities, or anyone when n is 0. */
struct nbd_id_list {
	unsigned int n;
	char id[NBD_EXPORT_IDS][NBD_IDENTITY_MAX + 1];
};

/* An export's spec as parsed (nbd_export_spec.c). */
struct nbd_export_spec {
	char dev[NBD_DEV_NAME];
	bool ro;
	struct nbd_id_list ids;
};

struct srv_export {
	bool used;		/* slots are never moved: clients point into them */
	struct nbd_export exp;
	struct pmem_device *dev;
	struct pmem_hold hold;
	struct dax_mapping map;	/* devdax: the whole device, mapped while exported */
	const u8 *base;		/* where READ data is sent from by reference; NULL: copied */
	const char *how;	/* how READ data goes, for nbd-list */
	bool zero_copy;		/* ... and whether that is by reference (how says "zero copy") */
	char name[NBD_DEV_NAME];
	struct nbd_id_list ids;	/* who may open it (the engine's may_open) */
	char who[PMEM_HOLDER_LEN];	/* how its hold names it */
	unsigned int clients;
	/* Since it was exported (nbd-unexport and nbd-export again start them over): */
	u64 accepted;			/* clients that chose it */
	struct nbd_stats closed;	/* what those of them that closed did */
	struct nbd_wcache wcache;	/* nbd.test-cache=: in front of exp when its mode is not OFF */
};

/* The export whose engine view is x (its callbacks' ctx may be a cache's). */
static inline struct srv_export *srv_export_of(const struct nbd_export *x)
{
	return (struct srv_export *)((char *)x - offsetof(struct srv_export, exp));
}

/* nbd_exports.c */
extern struct srv_export nbd_exports_tab[NBD_MAX_EXPORTS];
/* The table as each connection's engine sees it. */
extern const struct nbd_exports nbd_exports_ops;
/* nbd.zerocopy=: READ data by reference (on, the default) or copied. */
extern int nbd_zero_copy;
/*
 * nbd-export SPEC (DEV[:ro][@ID[+ID...]], nbd_export_spec.c), nbd-unexport
 * DEV: 0, or a negative errno after one line (a bad spec exports nothing).
 */
int nbd_export_add(const char *spec);
int nbd_export_remove(const char *name);
/* nbd-list's first lines: one per export (with its identities), or "nothing exported". */
void nbd_exports_list(void);
/* nbd-list -j's "exports" array, into j (nbd_cmds.c has the schema). */
struct nd_json;
void nbd_exports_json(struct nd_json *j);
/*
 * The first export any client that got through may open (no identity
 * list), only writable ones if `writable`; NULL if none. For the glue's
 * warning when such exports are served without TLS.
 */
const struct srv_export *nbd_export_open_to_all(bool writable);

/* nbd_export_spec.c (portable) */
/*
 * Parse DEV[:ro][@ID[+ID...]] whole into spec: 0, or -EINVAL with *why
 * the phrase for the one line ("only :ro may follow the device name") and
 * spec all zeros.
 */
int nbd_export_spec_parse(const char *s, struct nbd_export_spec *spec, const char **why);
/* May the client with this TLS identity (NULL: no TLS) open an export with list l? */
bool nbd_id_list_allows(const struct nbd_id_list *l, const char *identity);
/* The identities, space-separated, into buf (cut at len; "" for none). */
void nbd_id_list_format(const struct nbd_id_list *l, char *buf, size_t len);

/* nbd_pmem.c */
/*
 * e->exp, the engine's view of e->dev (held in e->hold, READ data by
 * reference from e->base unless NULL, named e->name): read-only if `ro` or
 * the device is.
 */
void nbd_pmem_export(struct srv_export *e, bool ro);

/* nbd_admit.c: who may connect, how many, for how long (nbd_server.c applies them). */
extern u64 nbd_handshake_secs;	/* nbd.handshake-timeout= */
extern u64 nbd_idle_secs;	/* nbd.timeout=, 0: off */
extern u64 nbd_max_clients;	/* nbd.max-clients= */
extern u64 nbd_max_per_source;	/* nbd.max-per-source= */
/* The first nbd.* parameter that was unknown or refused, or NULL. */
extern const char *nbd_bad_param;
/* False if an nbd.* parameter was unknown or refused: the server then does not listen. */
bool nbd_params_ok(void);
/* May addr (host order) connect (nbd.allow=)? */
bool nbd_allowed(u32 addr);
/*
 * May one more line about a single connection be printed? At most 20 in
 * 10 s; the first after a window that left some out says how many.
 */
bool nbd_line_ok(void);
#define conn_line(pr, ...)              \
	do {                            \
		if (nbd_line_ok())      \
			pr(__VA_ARGS__); \
	} while (0)
/* nbd-list's "allowed: ..." (with how many were refused) and "limits: ..." lines. */
void nbd_admit_list(u64 refused);

/* nbd_server.c */
/*
 * Listen on NBD_PORT once a NIC is up (0), else a line and a negative
 * errno (-EINVAL: nbd_params_ok() is false).
 */
int nbd_listen(void);
/* nbd-disconnect ID: drop that client now (one line); -ENOENT after a line if there is none. */
int nbd_disconnect(unsigned int id);
/* nbd-disconnect --all: every client, a line each; how many. */
unsigned int nbd_disconnect_all(void);
/* nbd-list's other lines: who may connect, closed connections' totals, each client. */
void nbd_connections_list(void);
/* nbd-list -j's "clients", "closed" and "refused", into j. */
void nbd_connections_json(struct nd_json *j);
/* to += s, every counter. */
void nbd_stats_add(struct nbd_stats *to, const struct nbd_stats *s);
/* e's totals since it was exported: its closed clients' and its connected clients' now. */
void nbd_export_totals(const struct srv_export *e, struct nbd_stats *t);

/* nbd_admit.c: was nbd.allow= given (even an invalid one, which lets nobody in)? */
bool nbd_allow_list_set(void);

/* nbd_tls.c: what the server offers of TLS, and a client's TLS between TCP and its engine. */
extern enum nbd_tls nbd_tls_mode;	/* nbd.tls=, resolved by nbd_tls_setup */
/*
 * Before listening: resolve nbd.tls= (unset: require with keys from
 * nbd.psk, off without) and seed TLS's random generator. 0, or a negative
 * errno after one line: the server must not listen (fails closed).
 */
int nbd_tls_setup(void);
/* What nbd.tls= says, or its default for the keys loaded (before nbd_tls_setup too). */
enum nbd_tls nbd_tls_policy(void);
/* After the boot's exports: one line if anyone who reaches the port can open an export without TLS. */
void nbd_tls_warn_open(void);

struct tls_session;
struct nbd_tls_link {
	struct tls_session *t;	/* NULL: plaintext */
	u8 *plain;		/* decrypted, not yet taken by the engine */
	u32 plain_off, plain_len;
	bool up;		/* the glue told the engine (nbd_conn_tls_started) */
};
/* A TLS server session after STARTTLS: 0, or -ENOMEM. */
int nbd_tls_start(struct nbd_tls_link *l);
void nbd_tls_stop(struct nbd_tls_link *l);
/* Ciphertext from TCP: the bytes taken (acknowledge that many). */
u32 nbd_tls_in(struct nbd_tls_link *l, const u8 *p, u32 n);
#define NBD_TLS_UP 2
/*
 * Decrypted bytes to the engine, as far as it takes them: 1 if any moved,
 * 0 if none, NBD_TLS_UP when the handshake just ended (the engine was told
 * the client's identity first: nbd_conn_tls_started), < 0 when the session
 * failed (nbd_tls_why says why; the connection must close).
 */
int nbd_tls_to_engine(struct nbd_tls_link *l, struct nbd_conn *c);
/* The engine's output, encrypted a record at a time; false if none was taken (no room yet). */
bool nbd_tls_from_engine(struct nbd_tls_link *l, struct nbd_conn *c);
/* Ciphertext for TCP, then how much of it was queued. */
u32 nbd_tls_out(struct nbd_tls_link *l, const u8 **p);
void nbd_tls_out_sent(struct nbd_tls_link *l, u32 n);
const char *nbd_tls_identity(const struct nbd_tls_link *l);
const char *nbd_tls_suite(const struct nbd_tls_link *l);
const char *nbd_tls_why(const struct nbd_tls_link *l);
/* End the session cleanly: a close_notify alert is queued for nbd_tls_out. */
void nbd_tls_close_notify(struct nbd_tls_link *l);

#endif
