/*
 * net-sink / net-source: raw TCP throughput, the reference of the network
 * benchmark (tools/bench-net). What the stack and the NIC carry without
 * NBD: net-sink takes bytes and drops them (acknowledged to TCP as they
 * arrive, as the NBD server does),
 * net-source sends BYTES from one static buffer by reference (no copy, as
 * zero-copy READ does), so NBD's figures read as a fraction of these. Both
 * serve CONNECTIONS (1) clients one after the other on PORT and print what
 * each moved and the guest's own time for it; the benchmark times them from
 * the host (tools/bench-net).
 */
#include <errno.h>

#include <lwip/tcp.h>

#include "arch.h"
#include "idle.h"
#include "net.h"
#include "printk.h"
#include "shell.h"

#define SOURCE_BUF (64u << 10)
static u8 source_buf[SOURCE_BUF] __attribute__((aligned(4096)));

static struct {
	struct tcp_pcb *pcb;	/* the connection being served, or NULL */
	bool source;		/* net-source: sending */
	u64 bytes, goal;	/* moved so far; net-source: to send */
	u64 t0;			/* arch_cycles() at accept */
	unsigned int done;	/* connections finished */
	bool failed;
} thr;

static void thr_finish(struct tcp_pcb *pcb, bool aborted)
{
	u64 ns = arch_cycles_to_ns(arch_cycles() - thr.t0);
	u64 kib_s = ns ? thr.bytes * 1000000000ull / ns / 1024 : 0;

	kprintf("%s: connection %u: %llu bytes in %llu.%03llu ms (%llu KiB/s guest time)%s\n",
		thr.source ? "net-source" : "net-sink", thr.done + 1, thr.bytes, ns / 1000000,
		ns / 1000 % 1000, kib_s, aborted ? ", aborted" : "");
	if (aborted)
		thr.failed = true;
	if (pcb) {
		tcp_arg(pcb, NULL);
		tcp_recv(pcb, NULL);
		tcp_sent(pcb, NULL);
		tcp_err(pcb, NULL);
		if (tcp_close(pcb) != ERR_OK)
			tcp_abort(pcb);
	}
	thr.pcb = NULL;
	thr.done++;
}

static err_t sink_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg;
	if (!p || err != ERR_OK) {
		if (p)
			pbuf_free(p);
		thr_finish(pcb, false);	/* the client closed: everything arrived */
		return ERR_OK;
	}
	thr.bytes += p->tot_len;
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	return ERR_OK;
}

/* Queue as much of the rest as the send buffer takes, by reference. */
static void source_fill(struct tcp_pcb *pcb)
{
	while (thr.bytes < thr.goal) {
		u32 room = tcp_sndbuf(pcb);
		if (!room || tcp_sndqueuelen(pcb) >= TCP_SND_QUEUELEN - 4)
			break;
		u64 left = thr.goal - thr.bytes;
		u32 off = (u32)(thr.bytes % SOURCE_BUF);
		u16 len = (u16)MIN(MIN(MIN(left, (u64)room), (u64)(SOURCE_BUF - off)), 0xFFFFull);
		if (tcp_write(pcb, source_buf + off, len, 0) != ERR_OK)
			break;
		thr.bytes += len;
	}
	tcp_output(pcb);
}

/*
 * Data acknowledged: the next fill waits for the end of the poll pass
 * (net_source_run_pending), as the NBD server's sending does, so the two
 * compare like with like (PERFORMANCE "Sending once per poll pass").
 */
static bool source_pending;

static err_t source_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	(void)arg;
	(void)len;
	(void)pcb;
	source_pending = true;
	return ERR_OK;
}

static bool net_source_run_pending(void)
{
	struct tcp_pcb *pcb = thr.pcb;

	if (!source_pending || !pcb || !thr.source)
		return false;
	source_pending = false;
	source_fill(pcb);
	if (thr.bytes == thr.goal && !tcp_sndqueuelen(pcb))
		thr_finish(pcb, false);	/* all acknowledged: close */
	return true;
}
NET_POLL_PASS(net_source_run_pending);

/* Data from a net-source client is dropped; its close before the end aborts. */
static err_t source_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg;
	if (!p || err != ERR_OK) {
		if (p)
			pbuf_free(p);
		thr_finish(pcb, thr.bytes < thr.goal || tcp_sndqueuelen(pcb));
		return ERR_OK;
	}
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	return ERR_OK;
}

static void thr_err(void *arg, err_t err)
{
	(void)arg;
	(void)err;
	thr_finish(NULL, true);	/* the pcb is already gone */
}

static err_t thr_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	if (thr.pcb) {		/* one at a time */
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	thr.pcb = pcb;
	thr.bytes = 0;
	thr.t0 = arch_cycles();
	tcp_nagle_disable(pcb);
	tcp_err(pcb, thr_err);
	if (thr.source) {
		tcp_recv(pcb, source_recv);
		tcp_sent(pcb, source_sent);
		source_fill(pcb);
	} else {
		tcp_recv(pcb, sink_recv);
	}
	return ERR_OK;
}

static int thr_serve(const char *name, unsigned long port, unsigned long conns)
{
	if (!net_if_count()) {
		kprintf("%s: no network interface is up\n", name);
		return -ENETDOWN;
	}
	struct tcp_pcb *l = tcp_new();
	if (l)
		ip_set_option(l, SOF_REUSEADDR);	/* the last run's connection may linger */
	if (!l || tcp_bind(l, IP_ANY_TYPE, (u16)port) != ERR_OK) {
		kprintf("%s: cannot bind port %lu\n", name, port);
		if (l)
			tcp_close(l);
		return -EADDRINUSE;
	}
	struct tcp_pcb *listener = tcp_listen(l);
	if (!listener) {
		tcp_close(l);
		kprintf("%s: cannot listen\n", name);
		return -ENOMEM;
	}
	tcp_accept(listener, thr_accept);
	thr.done = 0;
	thr.failed = false;
	kprintf("%s: listening on port %lu for %lu connection%s (Ctrl-C stops)\n", name, port, conns,
		conns == 1 ? "" : "s");
	bool stopped = false;
	while (thr.done < conns && !(stopped = shell_interrupted()))
		idle_wait(net_poll());
	tcp_close(listener);
	if (thr.pcb) {
		tcp_arg(thr.pcb, NULL);
		tcp_err(thr.pcb, NULL);
		tcp_abort(thr.pcb);
		thr.pcb = NULL;
	}
	kprintf("%s: %s after %u connection%s\n", name, stopped ? "stopped" : "done", thr.done,
		thr.done == 1 ? "" : "s");
	return stopped ? -EINTR : thr.failed ? -ECONNRESET : 0;
}

static int cmd_net_sink(int argc, char **argv)
{
	u32 port, conns = 1;

	if (shell_arg_u32(argv[0], "port", shell_arg(argc, argv, 1), 1, 65535, &port) ||
	    shell_opt_u32(argc, argv, 2, "connections", 1, ~0u, &conns) ||
	    shell_args_max(argc, argv, 3))
		return -EINVAL;
	thr.source = false;
	return thr_serve("net-sink", port, conns);
}
SHELL_COMMAND_NET_LOOP(SHELL_BENCH, "net-sink", cmd_net_sink, "net-sink PORT [CONNECTIONS]",
	      "TCP sink on PORT: read and drop what CONNECTIONS (1) clients send, one after the other");

static int cmd_net_source(int argc, char **argv)
{
	u32 port, conns = 1;
	u64 bytes;

	if (shell_arg_u32(argv[0], "port", shell_arg(argc, argv, 1), 1, 65535, &port) ||
	    shell_arg_size(argv[0], "bytes", shell_arg(argc, argv, 2), 1, ~0ull, &bytes) ||
	    shell_opt_u32(argc, argv, 3, "connections", 1, ~0u, &conns) ||
	    shell_args_max(argc, argv, 4))
		return -EINVAL;
	thr.source = true;
	thr.goal = bytes;
	return thr_serve("net-source", port, conns);
}
SHELL_COMMAND_NET_LOOP(SHELL_BENCH, "net-source", cmd_net_source, "net-source PORT BYTES [CONNECTIONS]",
	      "TCP source on PORT: send BYTES to each of CONNECTIONS (1) clients, one after the other, then close");
