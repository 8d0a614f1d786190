/*
 * The NBD server's connections as its files share them (kernel only: lwIP):
 * the slots (nbd_server.c, which runs them) and what nbd-list and
 * nbd-disconnect see of them (nbd_clients.c).
 */
#ifndef PMEMK_NBD_CLIENT_H
#define PMEMK_NBD_CLIENT_H

#include <lwip/tcp.h>

#include "nbd_priv.h"

struct client {
	struct tcp_pcb *pcb;
	struct nbd_conn conn;
	unsigned int id;		/* nbd-list's and nbd-disconnect's number, from 1 */
	u8 *stash;			/* received, not yet taken by the engine or TLS (STASH bytes) */
	u32 stash_len;
	struct nbd_tls_link tls;	/* after STARTTLS: TLS between TCP and the engine */
	struct srv_export *counted;	/* the export this client is counted on */
	struct pmem_hold hold;		/* on its device, while counted */
	char who[PMEM_HOLDER_LEN];	/* how its hold names it */
	bool used;
	bool closing;			/* closed, waiting for queued data to be acknowledged */
	bool run_pending;		/* data acknowledged this poll pass: nbd_server_run_pending */
	u32 t_accept;			/* sys_now() at accept */
	u32 t_active;			/* sys_now() of the latest byte received or acknowledged */
	u32 t_moved;			/* sys_now() when its send queue was last empty or moved */
	u64 t_first_io;			/* arch_cycles() when its first READ or WRITE arrived, or 0 */
	u64 t_last_ack;			/* arch_cycles() of the latest acknowledgement of its data */
};

extern struct client nbd_clients[NBD_MAX_CLIENTS];
extern struct nbd_stats nbd_closed_totals;	/* what closed connections did */
extern u64 nbd_refused;				/* connections refused (nbd.allow=, limits) */

/* Drop a connection now (a reset): its queued segments freed, then its hold released. ERR_ABRT. */
err_t client_drop(struct client *cl, const char *why);
/* Is the server listening? */
bool nbd_listening(void);
/* Where the client connects from: "10.0.2.2:40000" (nbd_clients.c). */
void nbd_client_remote(const struct client *cl, char *buf, size_t len);

#endif
