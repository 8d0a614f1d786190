/*
 * What the NBD server's files share (net/ only): the exports table
 * (nbd_exports.c), each export's view of its device (nbd_pmem.c), the
 * connections (nbd_server.c) and the commands that configure and list
 * them (nbd_cmds.c).
 */
#ifndef PMEMK_NBD_PRIV_H
#define PMEMK_NBD_PRIV_H

#include "nbd.h"
#include "nd_dax.h"
#include "pmem.h"

#define NBD_MAX_EXPORTS 8

struct srv_export {
	bool used;		/* slots are never moved: clients point into them */
	struct nbd_export exp;
	struct pmem_device *dev;
	struct pmem_hold hold;
	struct dax_mapping map;	/* devdax: the whole device, mapped while exported */
	const u8 *base;		/* where READ data is sent from by reference; NULL: copied */
	const char *how;	/* how READ data goes, for nbd-list */
	char name[24];
	char who[PMEM_HOLDER_LEN];	/* how its hold names it */
	unsigned int clients;
};

/* nbd_exports.c */
extern struct srv_export nbd_exports_tab[NBD_MAX_EXPORTS];
/* The table as each connection's engine sees it. */
extern const struct nbd_exports nbd_exports_ops;
/* nbd.zerocopy=: READ data by reference (on, the default) or copied. */
extern int nbd_zero_copy;
/* nbd-export SPEC (DEV[:ro]), nbd-unexport DEV: 0, or a negative errno after one line. */
int nbd_export_add(const char *spec);
int nbd_export_remove(const char *name);
/* nbd-list's first lines: one per export, or "nothing exported". */
void nbd_exports_list(void);

/* nbd_pmem.c */
/*
 * e->exp, the engine's view of e->dev (held in e->hold, READ data by
 * reference from e->base unless NULL, named e->name): read-only if `ro` or
 * the device is.
 */
void nbd_pmem_export(struct srv_export *e, bool ro);

/* nbd_server.c */
/*
 * Listen on NBD_PORT once a NIC is up (0), else a line and a negative
 * errno (-EINVAL: nbd_params_ok() is false).
 */
int nbd_listen(void);
/* False if an nbd.* parameter was unknown or refused: the server then does not listen. */
bool nbd_params_ok(void);
/* nbd-disconnect ID: drop that client now (one line); -ENOENT after a line if there is none. */
int nbd_disconnect(unsigned int id);
/* nbd-disconnect --all: every client, a line each; how many. */
unsigned int nbd_disconnect_all(void);
/* nbd-list's other lines: who may connect, closed connections' totals, each client. */
void nbd_connections_list(void);

#endif
