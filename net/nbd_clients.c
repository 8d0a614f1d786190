/*
 * What nbd-list and nbd-disconnect (nbd_cmds.c) see of the NBD server's
 * connections (nbd_server.c): each client with its id, export, TLS identity
 * and counters; dropping one, or all.
 */
#include <errno.h>

#include "nbd_client.h"
#include "net_priv.h"
#include "printk.h"

/* Drop one client (nbd-disconnect): one line; -ENOENT if there is none by that id. */
static int client_disconnect(struct client *cl)
{
	pr_info("nbd: client %u %s:%u disconnected%s%s\n", cl->id, ipaddr_ntoa(&cl->pcb->remote_ip),
		cl->pcb->remote_port, cl->conn.exp ? " from " : " (in the handshake)",
		cl->conn.exp ? cl->conn.exp->name : "");
	client_drop(cl, NULL);
	return 0;
}

int nbd_disconnect(unsigned int id)
{
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++)
		if (nbd_clients[i].used && nbd_clients[i].id == id)
			return client_disconnect(&nbd_clients[i]);
	pr_err("nbd: no client %u (nbd-list shows them)\n", id);
	return -ENOENT;
}

unsigned int nbd_disconnect_all(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++)
		if (nbd_clients[i].used && !client_disconnect(&nbd_clients[i]))
			n++;
	return n;
}

void nbd_connections_list(void)
{
	if (!nbd_listening())
		kprintf("not listening (the boot's lines say why)\n");
	nbd_admit_list(nbd_refused);
	kprintf("closed connections: %llu reads (%llu bytes, %llu without a copy), %llu writes (%llu bytes, %llu in one copy); zero copy %s\n",
		nbd_closed_totals.reads, nbd_closed_totals.bytes_read, nbd_closed_totals.bytes_by_ref, nbd_closed_totals.writes, nbd_closed_totals.bytes_written,
		nbd_closed_totals.bytes_direct, nbd_zero_copy ? "on" : "off");
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++) {
		const struct client *cl = &nbd_clients[i];
		if (!cl->used)
			continue;
		const struct nbd_stats *s = &cl->conn.stats;
		kprintf("client %u %s:%u %s%s%s%s: %llu reads (%llu bytes, %llu without a copy), %llu writes (%llu bytes, %llu in one copy), %llu flushes, %llu errors\n",
			cl->id, ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port,
			cl->conn.exp ? cl->conn.exp->name : "(haggling)", cl->tls.up ? " TLS as " : "",
			cl->tls.up ? cl->conn.identity : "", cl->closing ? " closing" : "",
			s->reads, s->bytes_read, s->bytes_by_ref, s->writes, s->bytes_written,
			s->bytes_direct, s->flushes, s->errors);
	}
}
