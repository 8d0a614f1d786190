/*
 * The HTTPS management API's connections on lwIP (api.port=, 443): TLS
 * with the certificate of api.crt (tls_session_new_cert), HTTP/1.1 with
 * keep-alive read by net/http_request.c, each whole request answered by
 * api_handle (net/api_handlers.c) in the poll pass after it arrived,
 * never inside lwIP's callbacks. The server's rules, like the NBD
 * server's (nbd_server.c), so that no client holds it:
 *  - the TLS handshake and each whole request must arrive within
 *    api.request-timeout= seconds (10) of the connection or of the last
 *    answer (a slow sender is answered 408 and closed);
 *  - a kept-alive connection waiting longer than api.idle-timeout= (30 s)
 *    for its next request is closed (close_notify, then FIN);
 *  - a connection whose answers are not read for 30 s is reset;
 *  - at most api.max-clients= (8) connections, api.max-per-source= (4)
 *    from one address; at a limit, the connection idle longest (between
 *    requests) makes room, else the new one is reset;
 *  - lines about single connections share a budget (20 in 10 s).
 * One request at a time per connection: a pipelined next one waits in
 * the reader until the answer is out. Everything here runs on the boot
 * CPU (net_poll's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwip/sys.h>
#include <lwip/tcp.h>

#include "api.h"
#include "arch.h"
#include "api_files.h"
#include "api_page.h"
#include "http_request.h"
#include "line_budget.h"
#include "metrics.h"
#include "net.h"
#include "net_priv.h"
#include "printk.h"
#include "tls_server.h"

#define API_BACKLOG 4
#define STASH TCP_WND		/* ciphertext received, not yet taken by the session */
#define PLAIN 4096		/* plaintext read at a time */
#define STALL_MS 30000
#define POLL_TICKS 2		/* on_poll every second */

struct api_conn {
	bool used, closing, run_pending;
	struct tcp_pcb *pcb;
	struct api_peer peer;
	struct tls_session *tls;
	struct http_reader rd;
	u8 *stash;
	u32 stash_len;
	u8 plain[PLAIN];
	u32 plain_off, plain_len;
	char *out;		/* the answer being sent (head and body) */
	size_t out_len, out_off;
	bool out_interim;	/* a 100 Continue: the request goes on after it */
	bool close_after;	/* close once out is sent */
	u32 t_accept, t_mark, t_moved;	/* t_mark: accepted, or the last answer sent */
};

static struct api_conn conns[API_MAX_CONNS];
static struct tcp_pcb *listener;
static struct line_budget lines = LINE_BUDGET_INIT("api", 20, 10000);
static u64 api_refused;
/* Time the network loop spent in api_handle: the longest one, and all of it. */
static u64 answer_ns_max, answer_ns_total;

#define conn_say(pr, c, fmt, ...)                                                  \
	do {                                                                       \
		if (line_budget_ok(&lines, sys_now()))                             \
			pr("api: %s " fmt "\n", (c)->peer.name, ##__VA_ARGS__); \
	} while (0)

const char *api_page(size_t *len)
{
	*len = api_page_html_len;
	return (const char *)api_page_html;
}

static void conn_free(struct api_conn *c)
{
	tls_session_free(c->tls);
	free(c->stash);
	free(c->out);
	http_reader_wipe(&c->rd);
	memset(c, 0, sizeof(*c));
}

static void conn_detach(struct tcp_pcb *pcb)
{
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	tcp_poll(pcb, NULL, 0);
}

/* Reset now (why: one line, or NULL). ERR_ABRT. */
static err_t conn_drop(struct api_conn *c, const char *why)
{
	if (why)
		conn_say(pr_info, c, "reset: %s", why);
	conn_detach(c->pcb);
	tcp_abort(c->pcb);
	conn_free(c);
	return ERR_ABRT;
}

/* Close once what is queued has gone (on_sent and on_poll come back). */
static err_t conn_close(struct api_conn *c)
{
	c->closing = true;
	if (tcp_sndqueuelen(c->pcb))
		return ERR_OK;
	conn_detach(c->pcb);
	if (tcp_close(c->pcb) != ERR_OK) {
		tcp_abort(c->pcb);
		conn_free(c);
		return ERR_ABRT;
	}
	conn_free(c);
	return ERR_OK;
}

/* Ciphertext the session has for the peer, as far as TCP takes it; true if some moved. */
static bool conn_push(struct api_conn *c)
{
	const u8 *data;
	size_t n = tls_session_out(c->tls, &data);
	u32 room = tcp_sndqueuelen(c->pcb) >= TCP_SND_QUEUELEN - 4 ? 0 : tcp_sndbuf(c->pcb);

	n = n < room ? n : room;
	if (!n || tcp_write(c->pcb, data, (u16)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
		return false;
	tls_session_sent(c->tls, n);
	return true;
}

/* Queue an answer: its head and body in one buffer. */
static int conn_answer(struct api_conn *c, const struct api_answer *a)
{
	char head[512];
	int n = api_answer_head(a, head, sizeof(head));

	if (n < 0)
		return n;
	c->out = malloc((size_t)n + a->len);
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, head, (size_t)n);
	memcpy(c->out + n, a->body, a->len);
	c->out_len = (size_t)n + a->len;
	c->out_off = 0;
	c->out_interim = false;
	c->close_after = a->close;
	return 0;
}

static int conn_interim(struct api_conn *c)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

	c->out = malloc(sizeof(cont) - 1);
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, cont, sizeof(cont) - 1);
	c->out_len = sizeof(cont) - 1;
	c->out_off = 0;
	c->out_interim = true;
	return 0;
}

/* Refuse the request the reader could not take, or one the server cannot serve: then close. */
static int conn_refuse(struct api_conn *c, u16 status, const char *why)
{
	struct api_answer a;

	api_answer_refusal(status, why, &a);
	api_answers[status >= 500 ? 2 : 1]++;
	return conn_answer(c, &a);
}

/* Read plaintext into the reader; an answer queued when a request is whole. -1: the session ended. */
static int conn_read(struct api_conn *c, bool *moved)
{
	if (c->plain_off == c->plain_len) {
		int n = tls_session_read(c->tls, c->plain, sizeof(c->plain));
		if (n < 0)
			return n;
		c->plain_off = 0;
		c->plain_len = (u32)n;
		if (!n)
			return 0;
		*moved = true;
	}
	size_t used = 0;
	enum http_read st = http_reader_feed(&c->rd, c->plain + c->plain_off,
					     c->plain_len - c->plain_off, &used);
	c->plain_off += (u32)used;
	*moved |= used != 0;
	if (st == HTTP_READ_MORE) {
		if (http_reader_continue_due(&c->rd))
			return conn_interim(c);
		return 0;
	}
	*moved = true;
	if (st == HTTP_READ_ERROR)
		return conn_refuse(c, c->rd.status, c->rd.reason);
	struct api_answer a;
	u64 t0 = arch_cycles();
	api_handle(&c->rd.req, &c->peer, sys_now(), &a);
	u64 ns = arch_cycles_to_ns(arch_cycles() - t0);
	answer_ns_total += ns;
	answer_ns_max = ns > answer_ns_max ? ns : answer_ns_max;
	return conn_answer(c, &a);
}

/* The session is over: a line unless the peer simply said goodbye, then close. */
static err_t conn_tls_end(struct api_conn *c, int err)
{
	if (err != -EPIPE)
		conn_say(pr_info, c, "TLS: %s", tls_session_why(c->tls));
	else
		tls_session_close_notify(c->tls);
	conn_push(c);
	tcp_output(c->pcb);
	return conn_close(c);
}

/* Move everything that can move; ERR_ABRT: the connection is gone. */
static err_t conn_run(struct api_conn *c)
{
	bool moved = true;

	if (c->closing)
		return conn_close(c);
	while (moved) {
		moved = false;
		if (c->stash_len) {
			size_t n = tls_session_put(c->tls, c->stash, c->stash_len);
			memmove(c->stash, c->stash + n, c->stash_len - n);
			c->stash_len -= (u32)n;
			for (size_t left = n; left;) {
				u16 k = (u16)(left < 0xFFFF ? left : 0xFFFF);
				tcp_recved(c->pcb, k);
				left -= k;
			}
			moved |= n != 0;
		}
		if (!c->out) {
			int err = conn_read(c, &moved);
			if (err == -ENOMEM)
				return conn_drop(c, "no memory for an answer");
			if (err < 0 && err != -E2BIG)
				return conn_tls_end(c, err);
		}
		if (c->out) {
			size_t n = tls_session_write(c->tls, (const u8 *)c->out + c->out_off,
						     c->out_len - c->out_off);
			c->out_off += n;
			moved |= n != 0;
			if (c->out_off == c->out_len) {
				bool interim = c->out_interim;
				free(c->out);
				c->out = NULL;
				if (c->close_after) {
					tls_session_close_notify(c->tls);
					conn_push(c);
					tcp_output(c->pcb);
					return conn_close(c);
				}
				if (!interim) {
					http_reader_next(&c->rd);
					c->t_mark = sys_now();
				}
			}
		}
		moved |= conn_push(c);
	}
	tcp_output(c->pcb);
	return ERR_OK;
}

static bool api_run_pending(void)
{
	bool ran = false;

	for (unsigned int i = 0; i < API_MAX_CONNS; i++) {
		struct api_conn *c = &conns[i];
		if (c->used && c->run_pending) {
			c->run_pending = false;
			conn_run(c);
			ran = true;
		}
	}
	return ran;
}
NET_POLL_PASS(api_run_pending);

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct api_conn *c = arg;

	if (!p || err != ERR_OK) {
		if (p)
			pbuf_free(p);
		if (c->rd.started && !c->closing)
			conn_say(pr_info, c, "closed in the middle of a request");
		return conn_close(c);
	}
	if (c->closing || p->tot_len > STASH - c->stash_len) {
		/* Closing: nothing more is read. Over the window: a broken peer. */
		bool over = !c->closing;
		tcp_recved(pcb, p->tot_len);
		pbuf_free(p);
		return over ? conn_drop(c, "it sent more than the TCP window") : ERR_OK;
	}
	pbuf_copy_partial(p, c->stash + c->stash_len, p->tot_len, 0);
	c->stash_len += p->tot_len;
	pbuf_free(p);
	c->run_pending = true;	/* answered in the poll pass, outside lwIP's callbacks */
	return ERR_OK;
}

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct api_conn *c = arg;

	(void)pcb;
	(void)len;
	c->t_moved = sys_now();
	c->run_pending = true;
	return ERR_OK;
}

/* Between requests, nothing to send: a kept-alive connection waiting. */
static bool conn_idle(const struct api_conn *c)
{
	return tls_session_ready(c->tls) && !c->rd.started && !c->out && !c->closing &&
	       c->plain_off == c->plain_len && !c->stash_len;
}

static err_t on_poll(void *arg, struct tcp_pcb *pcb)
{
	struct api_conn *c = arg;
	u32 now = sys_now();

	if (!tcp_sndqueuelen(pcb))
		c->t_moved = now;
	if (now - c->t_moved >= STALL_MS)
		return conn_drop(c, "its answers were not read for 30 s");
	if (c->closing)
		return conn_close(c);
	if (conn_idle(c) && now - c->t_mark >= api_idle_secs * 1000) {
		tls_session_close_notify(c->tls);
		conn_push(c);
		tcp_output(pcb);
		return conn_close(c);
	}
	if (!c->out && !conn_idle(c) && now - c->t_mark >= api_request_secs * 1000) {
		if (!tls_session_ready(c->tls))
			return conn_drop(c, "no TLS handshake within api.request-timeout");
		conn_say(pr_info, c, "no whole request within api.request-timeout: 408");
		struct api_answer a;
		api_answer_refusal(408, "the request did not arrive within api.request-timeout", &a);
		api_answers[1]++;
		if (conn_answer(c, &a))
			return conn_drop(c, "no memory for an answer");
	}
	return conn_run(c);
}

static void on_err(void *arg, err_t err)
{
	struct api_conn *c = arg;

	(void)err;
	c->pcb = NULL;	/* lwIP has freed it */
	conn_free(c);
}

/* A slot for a connection from addr: within the limits, the longest idle one making room. */
static struct api_conn *conn_slot(u32 addr, const char **why)
{
	struct api_conn *free_slot = NULL, *idlest = NULL, *idlest_same = NULL;
	unsigned int total = 0, same = 0;
	u32 now = sys_now();

	for (unsigned int i = 0; i < API_MAX_CONNS; i++) {
		struct api_conn *c = &conns[i];
		if (!c->used) {
			free_slot = free_slot ? free_slot : c;
			continue;
		}
		bool mine = c->peer.addr == addr;
		total++;
		same += mine;
		if (!conn_idle(c))
			continue;
		if (!idlest || now - c->t_mark > now - idlest->t_mark)
			idlest = c;
		if (mine && (!idlest_same || now - c->t_mark > now - idlest_same->t_mark))
			idlest_same = c;
	}
	struct api_conn *victim;
	if (same >= api_max_per_source) {
		victim = idlest_same;
		*why = "as many from there as api.max-per-source, none idle";
	} else if (total >= api_max_clients) {
		victim = idlest;
		*why = "as many connections as api.max-clients, none idle";
	} else {
		return free_slot;
	}
	if (victim)
		conn_drop(victim, "its slot went to a new connection while it was idle");
	return victim;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	const char *why = "no memory";
	u32 addr;

	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	addr = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)));
	struct api_conn *c = net_on_its_cpu("api: accept") ? conn_slot(addr, &why) : NULL;
	if (c) {
		c->stash = malloc(STASH);
		c->tls = c->stash ? tls_session_new_cert(api_cert()) : NULL;
	}
	if (!c || !c->tls) {
		api_refused++;
		if (line_budget_ok(&lines, sys_now()))
			pr_warn("api: refusing %s:%u: %s\n", ipaddr_ntoa(&pcb->remote_ip),
				pcb->remote_port, why);
		if (c)
			conn_free(c);
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	c->used = true;
	c->pcb = pcb;
	c->peer.addr = addr;
	snprintf(c->peer.name, sizeof(c->peer.name), "%s:%u", ipaddr_ntoa(&pcb->remote_ip),
		 pcb->remote_port);
	http_reader_init(&c->rd);
	c->t_accept = c->t_mark = c->t_moved = sys_now();
	tcp_arg(pcb, c);
	tcp_recv(pcb, on_recv);
	tcp_sent(pcb, on_sent);
	tcp_err(pcb, on_err);
	tcp_poll(pcb, on_poll, POLL_TICKS);
	tcp_nagle_disable(pcb);
	return ERR_OK;
}

void api_boot(void)
{
	if (!api_enabled() || listener)
		return;
	int err = tls_server_init();
	if (err) {
		pr_err("api: %s: the HTTPS API is off\n",
		       err == -ENODEV ? "no RDSEED or RDRAND for TLS's random numbers" :
					"TLS's random generator could not be seeded");
		return;
	}
	struct tcp_pcb *pcb = tcp_new();
	if (!pcb || tcp_bind(pcb, IP_ANY_TYPE, api_port()) != ERR_OK) {
		if (pcb)
			tcp_close(pcb);
		pr_err("api: cannot bind port %u: the HTTPS API is off\n", api_port());
		return;
	}
	listener = tcp_listen_with_backlog(pcb, API_BACKLOG);
	if (!listener) {
		tcp_close(pcb);
		pr_err("api: no memory to listen: the HTTPS API is off\n");
		return;
	}
	tcp_accept(listener, on_accept);
	pr_info("api: HTTPS on port %u (%llu connections, %llu per address; request %llu s, idle %llu s)\n",
		api_port(), api_max_clients, api_max_per_source, api_request_secs, api_idle_secs);
}

/* The API's own figures (include/metrics.h). */
static void api_metrics(void)
{
	static const char *const classes[] = { "2xx", "4xx", "5xx" };
	unsigned int open = 0;

	for (unsigned int i = 0; i < API_MAX_CONNS; i++)
		open += conns[i].used;
	metric_family("pmemk_api_requests_total", METRIC_COUNTER,
		      "HTTPS API requests answered since boot, by status class.");
	for (unsigned int i = 0; i < 3; i++)
		metric_sample("pmemk_api_requests_total", METRIC_LABELS({ "code", classes[i] }),
			      api_answers[i], 0);
	metric_single("pmemk_api_connections", METRIC_GAUGE, "HTTPS API connections open now.",
		      open, 0);
	metric_single("pmemk_api_refused_connections_total", METRIC_COUNTER,
		      "HTTPS API connections refused since boot (limits, no memory).", api_refused, 0);
	metric_single("pmemk_api_answer_seconds_max", METRIC_GAUGE,
		      "The longest the network loop spent answering one API request since boot.",
		      answer_ns_max / 1000, 6);
	metric_single("pmemk_api_answer_seconds_total", METRIC_COUNTER,
		      "Time the network loop spent answering API requests since boot.",
		      answer_ns_total / 1000, 6);
}
METRICS_SOURCE(api_metrics);
