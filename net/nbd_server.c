/*
 * The NBD server's connections on lwIP (TCP port 10809): who may connect
 * (nbd.allow=), one protocol engine (net/nbd_proto.c) per connection fed
 * from lwIP's receive buffers and sending once per poll pass, each client
 * holding its export's device while connected. The exports are
 * nbd_exports.c's, the commands nbd_cmds.c's.
 *
 * Every kind of block device is served: raw (pmemN), fsdax (pmemNm),
 * devdax (daxN.0) and sector (pmemNs). The export and each client connected
 * to it hold the device (pmem_hold), so the namespace cannot be torn down
 * under them: destroy/reconfigure say "busy: exported to N clients" (or
 * name the export), and nbd-unexport is refused while clients are
 * connected. READ data goes from pmem to the NIC without a copy
 * (nbd.zerocopy=, on by default): lwIP queues segments pointing into the
 * export's direct map (raw, fsdax) or its devdax mapping (dax_map, the
 * whole device), and the NIC reads them by DMA (the CPU still reads them
 * once for the TCP checksum), never over a bad sector: the engine asks
 * pmem_read_ref_clean before each piece leaves, and such a READ is copied
 * and gets EIO (nbd_pmem.c). A BTT's sectors move with every write, so
 * its READ data is copied through the BTT (nbd-list says so, and each
 * client's counters show it). WRITE data goes from lwIP's receive buffers
 * into pmem with the durable copy, once, as it arrives (pmem_write_bytes),
 * and one flush makes it durable before the reply; a BTT's is gathered
 * into whole sectors first (its writes go through the BTT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwip/tcp.h>

#include "arch.h"
#include "nbd_priv.h"
#include "net.h"
#include "net_priv.h"
#include "params.h"
#include "printk.h"

#define NBD_MAX_CLIENTS 32
#define STASH TCP_WND	/* received bytes not yet acknowledged to TCP: at most the window */

struct client {
	struct tcp_pcb *pcb;
	struct nbd_conn conn;
	u8 *stash;			/* received, not yet taken by the engine (STASH bytes) */
	u32 stash_len;
	struct srv_export *counted;	/* the export this client is counted on */
	struct pmem_hold hold;		/* on its device, while counted */
	char who[PMEM_HOLDER_LEN];	/* how its hold names it */
	bool used;
	bool closing;			/* closed, waiting for queued data to be acknowledged */
	unsigned int closing_polls;
	bool run_pending;		/* data acknowledged this poll pass: nbd_server_run_pending */
	u64 t_first_io;			/* arch_cycles() when its first READ or WRITE arrived, or 0 */
	u64 t_last_ack;			/* arch_cycles() of the latest acknowledgement of its data */
};

static struct client clients[NBD_MAX_CLIENTS];
static struct tcp_pcb *listener;

/* nbd.allow=: who may connect (host order); no list: anyone. */
#define NBD_MAX_ALLOW 16
static struct net_cidr allow[NBD_MAX_ALLOW];
static unsigned int nr_allow;
static bool allow_set;

static int nbd_allow_param(const char *val)
{
	char err[96];

	if (cidr_list_parse(val, allow, NBD_MAX_ALLOW, &nr_allow, err, sizeof(err))) {
		/* Refuse everyone rather than serve a network the admin meant to keep out. */
		pr_err("nbd.allow=%s: %s; no client will be accepted\n", val ? val : "", err);
		nr_allow = 0;
		allow_set = true;
		return -EINVAL;
	}
	allow_set = true;
	return 0;
}
KERNEL_PARAM("nbd.allow", nbd_allow_param,
	     "who may connect to the NBD server: A.B.C.D[/LEN],... (default: anyone)");

/* What closed connections did, for nbd-list. */
static struct nbd_stats totals;

/* One line for a connection that did I/O (its pcb still valid). */
static void client_report(const struct client *cl)
{
	const struct nbd_stats *st = &cl->conn.stats;

	if (!st->reads && !st->writes)
		return;
	/* Guest time from the first request to the last reply acknowledged, as net-source times its sending. */
	u64 ns = cl->t_last_ack > cl->t_first_io ? arch_cycles_to_ns(cl->t_last_ack - cl->t_first_io) : 0;
	u64 kib_s = ns ? (st->bytes_read + st->bytes_written) * 1000000000ull / ns / 1024 : 0;
	pr_info("nbd: client %s:%u done: %llu reads (%llu bytes, %llu without a copy), %llu writes (%llu bytes, %llu in one copy), in %llu.%03llu ms (%llu KiB/s guest time)\n",
		ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port, st->reads,
		st->bytes_read, st->bytes_by_ref, st->writes, st->bytes_written,
		st->bytes_direct, ns / 1000000, ns / 1000 % 1000, kib_s);
}

static void client_free(struct client *cl)
{
	const struct nbd_stats *st = &cl->conn.stats;

	totals.reads += st->reads;
	totals.writes += st->writes;
	totals.bytes_read += st->bytes_read;
	totals.bytes_by_ref += st->bytes_by_ref;
	totals.bytes_written += st->bytes_written;
	totals.bytes_direct += st->bytes_direct;
	if (cl->counted)
		cl->counted->clients--;
	pmem_release(&cl->hold);
	free(cl->stash);
	nbd_conn_free(&cl->conn);
	memset(cl, 0, sizeof(*cl));
}

static void client_detach(struct tcp_pcb *pcb)
{
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	tcp_poll(pcb, NULL, 0);
}

/*
 * Close a connection. Segments still queued may reference the export's
 * pmem (zero copy), so the client stays counted on the export (which keeps
 * the device) until TCP has them acknowledged; a peer that never
 * acknowledges is reset after 30 s.
 */
static void client_close(struct client *cl)
{
	struct tcp_pcb *pcb = cl->pcb;

	if (!cl->closing && cl->conn.close_reason)
		pr_info("nbd: client %s:%u closed: %s\n", ipaddr_ntoa(&pcb->remote_ip),
			pcb->remote_port, cl->conn.close_reason);
	cl->closing = true;
	if (tcp_sndqueuelen(pcb) && cl->closing_polls < 30)
		return;		/* on_sent / on_poll come back here */
	client_report(cl);
	client_detach(pcb);
	if (tcp_sndqueuelen(pcb) || tcp_close(pcb) != ERR_OK)
		tcp_abort(pcb);
	client_free(cl);
}

/*
 * A client that has chosen its export is counted on it and holds its
 * device. The export's own hold keeps the device, so this fails only if
 * the hold cannot be taken at all; -ENXIO then, and the client is closed.
 */
static int client_count(struct client *cl)
{
	struct srv_export *e = (struct srv_export *)cl->conn.exp->ctx;

	snprintf(cl->who, sizeof(cl->who), "nbd client %s:%u", ipaddr_ntoa(&cl->pcb->remote_ip),
		 cl->pcb->remote_port);
	int err = pmem_hold(e->dev, PMEM_HOLD_CLIENT, cl->who, &cl->hold);
	if (err) {
		pr_err("nbd: %s: %s cannot be held (error %d), closing\n", cl->who, e->name, err);
		cl->conn.close_reason = "its export's device is going away";
		return err;
	}
	cl->counted = e;
	e->clients++;
	return 0;
}

/* Give the engine what it takes of data; that much is acknowledged to TCP (the window reopens). */
static u32 client_feed(struct client *cl, const u8 *data, u32 len)
{
	u32 n = (u32)nbd_conn_input(&cl->conn, data, len);

	for (u32 left = n; left;) {	/* tcp_recved takes a u16 */
		u16 k = (u16)MIN(left, 0xFFFFu);
		tcp_recved(cl->pcb, k);
		left -= k;
	}
	return n;
}

/* Feed what was received, send what the engine has, as far as each side allows. */
static void client_run(struct client *cl)
{
	bool progress = true;

	if (cl->closing) {
		client_close(cl);
		return;
	}
	while (progress) {
		progress = false;
		if (cl->stash_len) {
			u32 n = client_feed(cl, cl->stash, cl->stash_len);
			memmove(cl->stash, cl->stash + n, cl->stash_len - n);
			cl->stash_len -= n;
			progress = n != 0;
		}
		if (!cl->t_first_io && (cl->conn.stats.reads || cl->conn.stats.writes))
			cl->t_first_io = arch_cycles();
		if (!cl->counted && cl->conn.exp && client_count(cl)) {
			client_close(cl);	/* the device is going away: no I/O to it */
			return;
		}
		const u8 *data;
		u64 roff;
		u32 n = nbd_conn_output(&cl->conn, &data);
		u32 room = tcp_sndbuf(cl->pcb);
		bool queue_ok = tcp_sndqueuelen(cl->pcb) < TCP_SND_QUEUELEN - 4;
		if (n && room && queue_ok) {
			u16 len = (u16)MIN(MIN(n, room), 0xFFFFu);
			if (tcp_write(cl->pcb, data, len, TCP_WRITE_FLAG_COPY) == ERR_OK) {
				nbd_conn_sent(&cl->conn, len);
				progress = true;
			}
		} else if (!n && room && queue_ok && (n = nbd_conn_output_ref(&cl->conn, &roff))) {
			/*
			 * Zero copy: lwIP queues PBUF_ROM segments pointing into the
			 * export's pmem; linkoutput hands their physical addresses to
			 * the NIC. The client's hold keeps the pages there.
			 */
			const struct srv_export *e = cl->conn.exp->ctx;
			u16 len = (u16)MIN(MIN(n, room), 0xFFFFu);
			if (tcp_write(cl->pcb, e->base + roff, len, 0) == ERR_OK) {
				nbd_conn_ref_sent(&cl->conn, len);
				progress = true;
			}
		} else if (!n && nbd_conn_output(&cl->conn, &data)) {
			progress = true; /* a READ's rest over a bad sector: copied now */
		}
	}
	tcp_output(cl->pcb);
	if (nbd_conn_done(&cl->conn))
		client_close(cl);
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct client *cl = arg;

	if (p && cl->closing) {	/* nothing more is read from a closed connection */
		tcp_recved(pcb, p->tot_len);
		pbuf_free(p);
		return ERR_OK;
	}
	if (!p || err != ERR_OK) {
		if (p)
			pbuf_free(p);
		client_close(cl);	/* the client went away (perhaps mid-request) */
		return ERR_OK;
	}
	/*
	 * What the engine does not take now (it waits for its output to
	 * drain: a client that stopped reading) is copied aside and the pbufs
	 * go back to lwIP's pool at once: held here, a stuck client's
	 * segments (one pool pbuf each, however small) could empty the pool
	 * and stall every connection. Unacknowledged data never exceeds the
	 * window lwIP advertises, so STASH bytes always suffice.
	 */
	for (struct pbuf *q = p; q; q = q->next) {
		u32 used = cl->stash_len ? 0 : client_feed(cl, q->payload, q->len);
		u32 rest = q->len - used;
		if (rest > STASH - cl->stash_len) {	/* the peer overran the window */
			pbuf_free(p);
			pr_warn("nbd: client %s:%u sent more than the TCP window, reset\n",
				ipaddr_ntoa(&pcb->remote_ip), pcb->remote_port);
			client_report(cl);
			client_detach(pcb);
			tcp_abort(pcb);
			client_free(cl);
			return ERR_ABRT;
		}
		memcpy(cl->stash + cl->stash_len, (const u8 *)q->payload + used, rest);
		cl->stash_len += rest;
	}
	pbuf_free(p);
	client_run(cl);
	return ERR_OK;
}

/*
 * An ACK freed send buffer. The sending waits for the end of the poll pass
 * (nbd_server_run_pending): a pass delivers many ACKs, and one client_run
 * after all of them writes what they freed in a few large tcp_writes, where
 * one per ACK wrote a segment or two each time. On e1000 that raised
 * NBD READ from 0.84-0.89 of raw TCP to 1.11-1.14 (PERFORMANCE).
 */
static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct client *cl = arg;

	(void)pcb;
	(void)len;
	cl->run_pending = true;
	cl->t_last_ack = arch_cycles();
	return ERR_OK;
}

static bool nbd_server_run_pending(void)
{
	bool ran = false;

	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++) {
		struct client *cl = &clients[i];

		if (cl->used && cl->run_pending) {
			cl->run_pending = false;
			client_run(cl);
			ran = true;
		}
	}
	return ran;
}
NET_POLL_PASS(nbd_server_run_pending);

static err_t on_poll(void *arg, struct tcp_pcb *pcb)
{
	struct client *cl = arg;

	(void)pcb;
	if (cl->closing)
		cl->closing_polls++;
	client_run(cl);
	return ERR_OK;
}

static void on_err(void *arg, err_t err)
{
	struct client *cl = arg;

	(void)err;
	cl->pcb = NULL;		/* lwIP has freed it */
	client_free(cl);
}

static u64 refused;

/* A refused connection closes at its first poll (a FIN), or is reset if it cannot. */
static err_t refused_poll(void *arg, struct tcp_pcb *pcb)
{
	(void)arg;
	tcp_recv(pcb, NULL);
	tcp_poll(pcb, NULL, 0);
	if (tcp_close(pcb) != ERR_OK) {
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	return ERR_OK;
}

static err_t refused_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)err;
	if (!p)
		return refused_poll(arg, pcb);	/* the client closed first */
	tcp_recved(pcb, p->tot_len);	/* nothing a refused client sends is looked at */
	pbuf_free(p);
	return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct client *cl = NULL;

	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (allow_set && !cidr_list_match(allow, nr_allow,
					  lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip))))) {
		pr_warn("nbd: refusing %s:%u: not in nbd.allow\n", ipaddr_ntoa(&pcb->remote_ip),
			pcb->remote_port);
		refused++;
		/* Closed at the first poll (not from inside lwIP's accept path): a FIN, not a reset. */
		tcp_arg(pcb, NULL);
		tcp_recv(pcb, refused_recv);
		tcp_poll(pcb, refused_poll, 1);
		return ERR_OK;
	}
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS && !cl; i++)
		if (!clients[i].used)
			cl = &clients[i];
	if (cl && !nbd_conn_init(&cl->conn, &nbd_exports_ops) && !(cl->stash = malloc(STASH)))
		nbd_conn_free(&cl->conn);
	if (!cl || !cl->stash) {
		pr_warn("nbd: refusing %s:%u: %s\n", ipaddr_ntoa(&pcb->remote_ip), pcb->remote_port,
			cl ? "no memory" : "too many clients");
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	cl->used = true;
	cl->pcb = pcb;
	cl->conn.zero_copy = nbd_zero_copy;
	tcp_arg(pcb, cl);
	tcp_recv(pcb, on_recv);
	tcp_sent(pcb, on_sent);
	tcp_err(pcb, on_err);
	tcp_poll(pcb, on_poll, 2);
	tcp_nagle_disable(pcb);
	client_run(cl);
	return ERR_OK;
}

int nbd_listen(void)
{
	if (listener)
		return 0;
	if (!net_nr_ifs) {
		pr_err("nbd: no network interface is up, not listening\n");
		return -ENETDOWN;
	}
	struct tcp_pcb *pcb = tcp_new();
	if (!pcb || tcp_bind(pcb, IP_ANY_TYPE, NBD_PORT) != ERR_OK) {
		if (pcb)
			tcp_close(pcb);
		pr_err("nbd: cannot bind port %d\n", NBD_PORT);
		return -EADDRINUSE;
	}
	listener = tcp_listen(pcb);
	if (!listener) {
		tcp_close(pcb);
		return -ENOMEM;
	}
	tcp_accept(listener, on_accept);
	pr_info("nbd: listening on port %d\n", NBD_PORT);
	return 0;
}

/* "allowed: ...": who may connect, and how many did not. */
static void allow_list(void)
{
	if (!allow_set) {
		kprintf("allowed: anyone (no nbd.allow=)\n");
		return;
	}
	kprintf("allowed:");
	for (unsigned int i = 0; i < nr_allow; i++) {
		char c[20];
		cidr_format(&allow[i], c, sizeof(c));
		kprintf(" %s", c);
	}
	kprintf("%s; %llu connection%s refused\n", nr_allow ? "" : " nobody (nbd.allow= was invalid)",
		refused, refused == 1 ? "" : "s");
}

void nbd_connections_list(void)
{
	allow_list();
	kprintf("closed connections: %llu reads (%llu bytes, %llu without a copy), %llu writes (%llu bytes, %llu in one copy); zero copy %s\n",
		totals.reads, totals.bytes_read, totals.bytes_by_ref, totals.writes, totals.bytes_written,
		totals.bytes_direct, nbd_zero_copy ? "on" : "off");
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++) {
		const struct client *cl = &clients[i];
		if (!cl->used)
			continue;
		const struct nbd_stats *s = &cl->conn.stats;
		kprintf("client %s:%u %s%s: %llu reads (%llu bytes, %llu without a copy), %llu writes (%llu bytes, %llu in one copy), %llu flushes, %llu errors\n",
			ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port,
			cl->conn.exp ? cl->conn.exp->name : "(haggling)", cl->closing ? " closing" : "",
			s->reads, s->bytes_read, s->bytes_by_ref, s->writes, s->bytes_written,
			s->bytes_direct, s->flushes, s->errors);
	}
}
