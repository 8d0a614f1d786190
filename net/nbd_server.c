/*
 * The NBD server's connections on lwIP (TCP port 10809): one protocol
 * engine (net/nbd_proto.c) per connection fed from lwIP's receive buffers
 * and sending once per poll pass, each client holding its export's device
 * while connected. Who may connect, how many and for how long are
 * nbd_admit.c's parameters, applied here; the exports are nbd_exports.c's,
 * the commands nbd_cmds.c's.
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
 *
 * No client can hold the server (issue 30), with these defaults:
 *  - a connection not in transmission (no export chosen) within
 *    nbd.handshake-timeout= seconds (10) is dropped: idle and half-open
 *    connections give their slots back;
 *  - nbd.timeout=SECS (0: off, the default; as nbd-server's per-export
 *    timeout): a client in transmission that sends no request and is sent
 *    nothing for SECS is closed, and its hold on the device goes with it;
 *  - a client whose send queue has not moved for 30 s (it does not read
 *    its replies) is reset, open or closing;
 *  - TCP keepalive on every client: probes after 60 s of silence, every
 *    10 s, 6 unanswered close it: a dead peer is gone in about 2 minutes;
 *  - at most nbd.max-clients= (32, the slots) connections, and
 *    nbd.max-per-source= (16) from one address; nbd.allow= is checked
 *    before either. When a limit is reached, the oldest connection still
 *    in the handshake makes room (a flood of idle connections never keeps
 *    a real client out); with none, the new one is reset;
 *  - `nbd-disconnect ID|--all` (nbd_cmds.c) drops a client at once;
 *  - an unknown nbd.* parameter, or a value one refused, keeps the server
 *    from listening (KERNEL_PARAM_FAMILY: a mistyped nbd.allow= must not
 *    leave it open to anyone);
 *  - lines about single connections are rate limited (20 per 10 s,
 *    conn_line).
 * Everything here runs on the boot CPU only (net_poll's), and says so
 * rather than run elsewhere.
 *
 * A client's bytes come in at one place (client_feed: to the engine) and
 * go out at one (client_send: to TCP), so a transport layer can sit there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwip/sys.h>
#include <lwip/tcp.h>

#include "arch.h"
#include "nbd_client.h"
#include "nbd_priv.h"
#include "net.h"
#include "net_priv.h"
#include "printk.h"

#define NBD_LISTEN_BACKLOG 8	/* connections between SYN and accept (lwipopts.h: the PCBs) */
#define STASH TCP_WND	/* received bytes not yet acknowledged to TCP: at most the window */
#define STALL_MS 30000	/* a send queue that has not moved for this long: reset */
#define POLL_TICKS 2	/* on_poll every 2 coarse TCP ticks (1 s) */


struct client nbd_clients[NBD_MAX_CLIENTS];
static struct tcp_pcb *listener;
static unsigned int next_id = 1;

/* What closed connections did, for nbd-list. */
struct nbd_stats nbd_closed_totals;

/* One line for a connection that did I/O (its pcb still valid). */
static void client_report(const struct client *cl)
{
	const struct nbd_stats *st = &cl->conn.stats;

	if (!st->reads && !st->writes)
		return;
	/* Guest time from the first request to the last reply acknowledged, as net-source times its sending. */
	u64 ns = cl->t_last_ack > cl->t_first_io ? arch_cycles_to_ns(cl->t_last_ack - cl->t_first_io) : 0;
	u64 kib_s = ns ? (st->bytes_read + st->bytes_written) * 1000000000ull / ns / 1024 : 0;
	conn_line(pr_info, "nbd: client %u %s:%u done: %llu reads (%llu bytes, %llu without a copy), %llu writes (%llu bytes, %llu in one copy), in %llu.%03llu ms (%llu KiB/s guest time)\n",
		  cl->id, ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port, st->reads,
		  st->bytes_read, st->bytes_by_ref, st->writes, st->bytes_written,
		  st->bytes_direct, ns / 1000000, ns / 1000 % 1000, kib_s);
	/* What else the client asked for (issue 31: what Linux's driver sends). */
	conn_line(pr_info, "nbd: client %u %s:%u also: %llu flushes, %llu with FUA, %llu write-zeroes, %llu failed; longest request %u bytes\n",
		  cl->id, ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port, st->flushes,
		  st->fua, st->zeroes, st->errors, st->max_len);
}

/* Its counters go to the closed connections' totals, the server's and its export's. */
static void client_free(struct client *cl)
{
	const struct nbd_stats *st = &cl->conn.stats;

	nbd_stats_add(&nbd_closed_totals, st);
	if (cl->counted) {
		nbd_stats_add(&cl->counted->closed, st);
		cl->counted->clients--;
	}
	pmem_release(&cl->hold);
	nbd_tls_stop(&cl->tls);
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
 * Drop a connection now (a reset): nothing more is read from it, and
 * tcp_abort frees its queued segments, which may point into the export's
 * pmem (zero copy), before the client's hold on the device is released.
 * A WRITE it had half sent is simply never acknowledged: the protocol
 * allows any content in an unacknowledged write's range, and what arrived
 * is in pmem up to where it stopped (a BTT's whole sectors, each written
 * atomically), so the device stays consistent. Frames already handed to
 * the NIC keep their pbufs until the NIC says it is done (tx_done), which
 * under QEMU is the same poll pass. Returns ERR_ABRT, lwIP's word for it.
 */
err_t client_drop(struct client *cl, const char *why)
{
	struct tcp_pcb *pcb = cl->pcb;

	if (why)
		conn_line(pr_info, "nbd: client %u %s:%u reset: %s\n", cl->id,
			  ipaddr_ntoa(&pcb->remote_ip), pcb->remote_port, why);
	client_report(cl);
	client_detach(pcb);
	tcp_abort(pcb);
	client_free(cl);
	return ERR_ABRT;
}

/*
 * Close a connection. Segments still queued may reference the export's
 * pmem (zero copy), so the client stays counted on the export (which keeps
 * the device) until TCP has them acknowledged; a queue that does not move
 * for 30 s is reset (on_poll). why: the server's reason, or NULL for the
 * engine's (none: the client's DISC or ABORT). ERR_ABRT if it was reset.
 */
static err_t client_close(struct client *cl, const char *why)
{
	struct tcp_pcb *pcb = cl->pcb;

	if (!why)
		why = cl->conn.close_reason;
	if (!cl->closing && why)
		conn_line(pr_info, "nbd: client %u %s:%u closed: %s\n", cl->id,
			  ipaddr_ntoa(&pcb->remote_ip), pcb->remote_port, why);
	cl->closing = true;
	if (tcp_sndqueuelen(pcb))
		return ERR_OK;	/* on_sent / on_poll come back here */
	client_report(cl);
	client_detach(pcb);
	if (tcp_close(pcb) != ERR_OK) {
		tcp_abort(pcb);
		client_free(cl);
		return ERR_ABRT;
	}
	client_free(cl);
	return ERR_OK;
}

/*
 * A client that has chosen its export is counted on it and holds its
 * device. The export's own hold keeps the device, so this fails only if
 * the hold cannot be taken at all; -ENXIO then, and the client is closed.
 */
static int client_count(struct client *cl)
{
	struct srv_export *e = srv_export_of(cl->conn.exp);

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
	e->accepted++;
	return 0;
}

/* n received bytes were taken: acknowledged to TCP, the window reopens. */
static void client_recved(struct client *cl, u32 n)
{
	for (u32 left = n; left;) {	/* tcp_recved takes a u16 */
		u16 k = (u16)MIN(left, 0xFFFFu);
		tcp_recved(cl->pcb, k);
		left -= k;
	}
}

/*
 * Bytes in, the one place: the engine takes what it can, or under TLS the
 * session takes the ciphertext (client_input_tls feeds the engine).
 */
static u32 client_feed(struct client *cl, const u8 *data, u32 len)
{
	u32 n = cl->tls.t ? nbd_tls_in(&cl->tls, data, len) : (u32)nbd_conn_input(&cl->conn, data, len);

	client_recved(cl, n);
	return n;
}

/* How many bytes client_send may queue now (0: wait for acknowledgements). */
static u32 client_room(const struct client *cl)
{
	if (tcp_sndqueuelen(cl->pcb) >= TCP_SND_QUEUELEN - 4)
		return 0;
	return MIN((u32)tcp_sndbuf(cl->pcb), 0xFFFFu);
}

/*
 * Bytes out, the one place: len bytes (at most client_room) queued to TCP,
 * copied, or (by_ref) pointing into the export's pmem until acknowledged.
 */
static bool client_send(struct client *cl, const void *data, u32 len, bool by_ref)
{
	return tcp_write(cl->pcb, data, (u16)len, by_ref ? 0 : TCP_WRITE_FLAG_COPY) == ERR_OK;
}

/* Output under TLS: the engine's encrypted a record at a time, the ciphertext as far as TCP takes it. */
static bool client_output_tls(struct client *cl)
{
	const u8 *data;
	bool moved = nbd_tls_from_engine(&cl->tls, &cl->conn);
	u32 room = client_room(cl), n;

	if (room && (n = nbd_tls_out(&cl->tls, &data))) {
		n = MIN(n, room);
		if (client_send(cl, data, n, false)) {
			nbd_tls_out_sent(&cl->tls, n);
			moved = true;
		}
	}
	return moved;
}

/* One step of output: what the engine has, as far as TCP takes it; false if nothing moved. */
static bool client_output(struct client *cl)
{
	const u8 *data;
	u64 roff;
	if (cl->tls.t)
		return client_output_tls(cl);
	u32 room = client_room(cl);
	u32 n = nbd_conn_output(&cl->conn, &data);

	if (n && room) {
		n = MIN(n, room);
		if (!client_send(cl, data, n, false))
			return false;
		nbd_conn_sent(&cl->conn, n);
		return true;
	}
	if (!n && room && (n = nbd_conn_output_ref(&cl->conn, &roff))) {
		/*
		 * Zero copy: lwIP queues PBUF_ROM segments pointing into the
		 * export's pmem; linkoutput hands their physical addresses to
		 * the NIC. The client's hold keeps the pages there.
		 */
		const struct srv_export *e = srv_export_of(cl->conn.exp);
		n = MIN(n, room);
		if (!client_send(cl, e->base + roff, n, true))
			return false;
		nbd_conn_ref_sent(&cl->conn, n);
		return true;
	}
	/* A READ's rest over a bad sector: copied now, then sent on the next step. */
	return !n && nbd_conn_output(&cl->conn, &data);
}

/*
 * The TLS session ended. The client's close_notify after its DISC is the
 * normal end (no line); anything else (a wrong key, an unknown identity, an
 * alert) is said. Our alert or close_notify goes out before the close.
 */
static err_t client_tls_end(struct client *cl, int err)
{
	static char why[96];	/* printed by client_close at once */
	bool normal = err == -EPIPE && cl->conn.state == NBD_S_CLOSED;

	snprintf(why, sizeof(why), "TLS: %s", nbd_tls_why(&cl->tls));
	if (err == -EPIPE)
		nbd_tls_close_notify(&cl->tls);
	if (!normal)
		nbd_conn_close(&cl->conn, why);
	client_output_tls(cl);
	tcp_output(cl->pcb);
	return client_close(cl, normal ? NULL : why);
}

/* Feed what was received, send what the engine has, as far as each side allows. ERR_ABRT: gone. */
static err_t client_run(struct client *cl)
{
	bool progress = true;

	if (cl->closing)
		return client_close(cl, NULL);
	while (progress) {
		progress = false;
		if (cl->stash_len) {
			u32 n = client_feed(cl, cl->stash, cl->stash_len);
			memmove(cl->stash, cl->stash + n, cl->stash_len - n);
			cl->stash_len -= n;
			progress = n != 0;
		}
		if (cl->tls.t) {
			int moved = nbd_tls_to_engine(&cl->tls, &cl->conn);
			if (moved < 0)
				return client_tls_end(cl, moved);
			if (moved == NBD_TLS_UP)
				conn_line(pr_info, "nbd: client %u %s:%u TLS 1.2 as %s: %s\n", cl->id,
					  ipaddr_ntoa(&cl->pcb->remote_ip), cl->pcb->remote_port,
					  nbd_tls_identity(&cl->tls), nbd_tls_suite(&cl->tls));
			progress |= moved > 0;
		}
		if (!cl->t_first_io && (cl->conn.stats.reads || cl->conn.stats.writes))
			cl->t_first_io = arch_cycles();
		if (!cl->counted && cl->conn.exp && client_count(cl))
			return client_close(cl, NULL);	/* the device is going away: no I/O to it */
		progress |= client_output(cl);
		const u8 *data;
		if (nbd_conn_starttls(&cl->conn) && !cl->tls.t && !nbd_conn_output(&cl->conn, &data)) {
			/* The ACK went to TCP: what follows is TLS, never by reference (the cipher reads it all). */
			if (nbd_tls_start(&cl->tls))
				nbd_conn_close(&cl->conn, "no memory for a TLS session");
			cl->conn.zero_copy = false;
			progress = true;
		}
	}
	tcp_output(cl->pcb);
	if (nbd_conn_done(&cl->conn) && cl->tls.up) {
		nbd_tls_close_notify(&cl->tls);	/* TLS ends before TCP does */
		client_output_tls(cl);
		tcp_output(cl->pcb);
	}
	if (nbd_conn_done(&cl->conn))
		return client_close(cl, NULL);
	return ERR_OK;
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
		return client_close(cl, NULL);	/* the client went away (perhaps mid-request) */
	}
	cl->t_active = sys_now();
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
			return client_drop(cl, "it sent more than the TCP window");
		}
		memcpy(cl->stash + cl->stash_len, (const u8 *)q->payload + used, rest);
		cl->stash_len += rest;
	}
	pbuf_free(p);
	return client_run(cl);
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
	cl->t_active = cl->t_moved = sys_now();
	return ERR_OK;
}

static bool nbd_server_run_pending(void)
{
	bool ran = false;

	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++) {
		struct client *cl = &nbd_clients[i];

		if (cl->used && nbd_conn_busy(&cl->conn)) {
			nbd_conn_work(&cl->conn);	/* a slice of a WRITE_ZEROES: others go on meanwhile */
			cl->run_pending = true;
		}
		if (cl->used && cl->run_pending) {
			cl->run_pending = false;
			client_run(cl);
			ran = true;
		}
	}
	return ran;
}
NET_POLL_PASS(nbd_server_run_pending);

/* Not yet in transmission (no export chosen), and not closed either. */
static bool in_handshake(const struct client *cl)
{
	return (cl->conn.state == NBD_S_CLIENT_FLAGS || cl->conn.state == NBD_S_OPTIONS) &&
	       !cl->closing;
}

/* Every second: the time limits (top of the file), then whatever can move. */
static err_t on_poll(void *arg, struct tcp_pcb *pcb)
{
	struct client *cl = arg;
	u32 now = sys_now();

	if (!tcp_sndqueuelen(pcb))
		cl->t_moved = now;
	if (now - cl->t_moved >= STALL_MS)
		return client_drop(cl, "its replies were not read for 30 s");
	if (in_handshake(cl) && now - cl->t_accept >= nbd_handshake_secs * 1000)
		return client_drop(cl, "no export chosen within nbd.handshake-timeout");
	if (nbd_idle_secs && cl->conn.state == NBD_S_TRANSMISSION && !cl->closing &&
	    now - cl->t_active >= nbd_idle_secs * 1000)
		return client_close(cl, "idle for nbd.timeout");
	return client_run(cl);
}

static void on_err(void *arg, err_t err)
{
	struct client *cl = arg;

	(void)err;
	cl->pcb = NULL;		/* lwIP has freed it */
	client_free(cl);
}

u64 nbd_refused;

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

/*
 * A free slot for a connection from src, within nbd.max-clients and
 * nbd.max-per-source: when a limit is reached, the oldest connection still
 * in the handshake (of that source, for its share) is dropped for it.
 * NULL, and *why, when none can be.
 */
static struct client *client_slot(const ip_addr_t *src, const char **why)
{
	struct client *free_slot = NULL, *oldest = NULL, *oldest_same = NULL;
	unsigned int total = 0, same = 0;
	u32 now = sys_now();

	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++) {
		struct client *cl = &nbd_clients[i];
		if (!cl->used) {
			free_slot = free_slot ? free_slot : cl;
			continue;
		}
		bool mine = ip_addr_cmp(&cl->pcb->remote_ip, src);
		total++;
		same += mine;
		if (!in_handshake(cl))
			continue;
		if (!oldest || now - cl->t_accept > now - oldest->t_accept)
			oldest = cl;
		if (mine && (!oldest_same || now - cl->t_accept > now - oldest_same->t_accept))
			oldest_same = cl;
	}
	struct client *victim;
	if (same >= nbd_max_per_source) {
		victim = oldest_same;
		*why = "as many from there as nbd.max-per-source, none in the handshake";
	} else if (total >= nbd_max_clients) {
		victim = oldest;
		*why = "as many clients as nbd.max-clients, none in the handshake";
	} else {
		return free_slot;
	}
	if (victim)
		client_drop(victim, "its slot went to a new connection while it was still in the handshake");
	return victim;
}

/* Keepalive: probes after 60 s of silence, every 10 s, 6 unanswered: a dead peer is gone in 2 minutes. */
static void client_keepalive(struct tcp_pcb *pcb)
{
	ip_set_option(pcb, SOF_KEEPALIVE);
	pcb->keep_idle = 60000;
	pcb->keep_intvl = 10000;
	pcb->keep_cnt = 6;
}

/* Refuse from inside the accept callback: a reset, one (rate-limited) line. */
static err_t accept_refuse(struct tcp_pcb *pcb, const char *why)
{
	nbd_refused++;
	conn_line(pr_warn, "nbd: refusing %s:%u: %s\n", ipaddr_ntoa(&pcb->remote_ip), pcb->remote_port,
		  why);
	tcp_abort(pcb);
	return ERR_ABRT;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	const char *why = "no memory";

	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (!net_on_its_cpu("nbd: accept"))
		return accept_refuse(pcb, "not on the network's CPU");
	if (!nbd_allowed(lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip))))) {
		conn_line(pr_warn, "nbd: refusing %s:%u: not in nbd.allow\n",
			  ipaddr_ntoa(&pcb->remote_ip), pcb->remote_port);
		nbd_refused++;
		/*
		 * Closed at the first poll (not from inside lwIP's accept path):
		 * a FIN, not a reset. The lowest priority: if PCBs run short,
		 * lwIP takes these back first, never a client's (lwipopts.h).
		 */
		tcp_setprio(pcb, TCP_PRIO_MIN);
		tcp_arg(pcb, NULL);
		tcp_recv(pcb, refused_recv);
		tcp_poll(pcb, refused_poll, 1);
		return ERR_OK;
	}
	struct client *cl = client_slot(&pcb->remote_ip, &why);
	if (cl && !nbd_conn_init(&cl->conn, &nbd_exports_ops) && !(cl->stash = malloc(STASH)))
		nbd_conn_free(&cl->conn);
	if (!cl || !cl->stash)
		return accept_refuse(pcb, why);
	cl->used = true;
	cl->pcb = pcb;
	cl->id = next_id++;
	cl->t_accept = cl->t_active = cl->t_moved = sys_now();
	cl->conn.zero_copy = nbd_zero_copy;
	cl->conn.tls = nbd_tls_mode;
	cl->conn.work_in_steps = true;
	tcp_arg(pcb, cl);
	tcp_recv(pcb, on_recv);
	tcp_sent(pcb, on_sent);
	tcp_err(pcb, on_err);
	tcp_poll(pcb, on_poll, POLL_TICKS);
	tcp_nagle_disable(pcb);
	client_keepalive(pcb);
	return client_run(cl);
}

int nbd_listen(void)
{
	if (listener)
		return 0;
	if (!net_on_its_cpu("nbd"))
		return -EPERM;
	if (!nbd_params_ok()) {
		pr_err("nbd: not listening: the command line's %s is unknown or was refused (nbd.* fails closed)\n",
		       nbd_bad_param);
		return -EINVAL;
	}
	if (!net_nr_ifs) {
		pr_err("nbd: no network interface is up, not listening\n");
		return -ENETDOWN;
	}
	int err = nbd_tls_setup();
	if (err)
		return err;
	struct tcp_pcb *pcb = tcp_new();
	if (!pcb || tcp_bind(pcb, IP_ANY_TYPE, NBD_PORT) != ERR_OK) {
		if (pcb)
			tcp_close(pcb);
		pr_err("nbd: cannot bind port %d\n", NBD_PORT);
		return -EADDRINUSE;
	}
	listener = tcp_listen_with_backlog(pcb, NBD_LISTEN_BACKLOG);
	if (!listener) {
		tcp_close(pcb);
		return -ENOMEM;
	}
	tcp_accept(listener, on_accept);
	pr_info("nbd: listening on port %d\n", NBD_PORT);
	return 0;
}

bool nbd_listening(void)
{
	return listener != NULL;
}
