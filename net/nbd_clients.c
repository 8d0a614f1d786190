/*
 * What nbd-list and nbd-disconnect (nbd_cmds.c) and the NBD metrics
 * (nbd_metrics.c) see of the NBD server's connections (nbd_server.c): each
 * client with its id, export, TLS identity and counters, as text or JSON;
 * an export's totals; dropping one client, or all.
 */
#include <errno.h>
#include <stdio.h>

#include <lwip/sys.h>

#include "nbd_client.h"
#include "nd_json.h"
#include "net_priv.h"
#include "printk.h"

void nbd_stats_add(struct nbd_stats *to, const struct nbd_stats *s)
{
	to->reads += s->reads;
	to->writes += s->writes;
	to->flushes += s->flushes;
	to->zeroes += s->zeroes;
	to->errors += s->errors;
	to->fua += s->fua;
	to->max_len = MAX(to->max_len, s->max_len);
	to->bytes_read += s->bytes_read;
	to->bytes_written += s->bytes_written;
	to->bytes_by_ref += s->bytes_by_ref;
	to->bytes_direct += s->bytes_direct;
}

void nbd_export_totals(const struct srv_export *e, struct nbd_stats *t)
{
	*t = e->closed;
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++)
		if (nbd_clients[i].used && nbd_clients[i].counted == e)
			nbd_stats_add(t, &nbd_clients[i].conn.stats);
}

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

void nbd_client_remote(const struct client *cl, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port);
}

/* nbd-list's " closing" (or the engine is done with it), else where the protocol is. */
static const char *client_state(const struct client *cl)
{
	if (cl->closing || cl->conn.state == NBD_S_CLOSED)
		return "closing";
	return cl->conn.state == NBD_S_TRANSMISSION ? "transmission" : "handshake";
}

static void client_json(struct nd_json *j, const struct client *cl)
{
	const struct nbd_stats *s = &cl->conn.stats;
	char remote[48];

	nbd_client_remote(cl, remote, sizeof(remote));
	nd_json_open(j, NULL, '{');
	nd_json_u64(j, "id", cl->id);
	nd_json_str(j, "remote", remote);
	if (cl->conn.exp)
		nd_json_str(j, "export", cl->conn.exp->name);
	nd_json_str(j, "state", client_state(cl));
	if (cl->tls.up) {
		nd_json_str(j, "tls", nbd_tls_suite(&cl->tls));
		if (cl->conn.identity[0])
			nd_json_str(j, "identity", cl->conn.identity);
	}
	nd_json_u64(j, "reads", s->reads);
	nd_json_u64(j, "read_bytes", s->bytes_read);
	nd_json_u64(j, "zero_copy_bytes", s->bytes_by_ref);
	nd_json_u64(j, "writes", s->writes);
	nd_json_u64(j, "write_bytes", s->bytes_written);
	nd_json_u64(j, "flushes", s->flushes);
	nd_json_u64(j, "fua", s->fua);
	nd_json_u64(j, "write_zeroes", s->zeroes);
	nd_json_u64(j, "errors", s->errors);
	nd_json_u64(j, "connected_ms", (u32)(sys_now() - cl->t_accept));
	nd_json_close(j, '}');
}

void nbd_connections_json(struct nd_json *j)
{
	const struct nbd_stats *c = &nbd_closed_totals;

	nd_json_open(j, "clients", '[');
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++)
		if (nbd_clients[i].used)
			client_json(j, &nbd_clients[i]);
	nd_json_close(j, ']');
	nd_json_open(j, "closed", '{');
	nd_json_u64(j, "reads", c->reads);
	nd_json_u64(j, "read_bytes", c->bytes_read);
	nd_json_u64(j, "zero_copy_bytes", c->bytes_by_ref);
	nd_json_u64(j, "writes", c->writes);
	nd_json_u64(j, "write_bytes", c->bytes_written);
	nd_json_close(j, '}');
	nd_json_u64(j, "refused", nbd_refused);
}
