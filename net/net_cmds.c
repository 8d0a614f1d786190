/*
 * Network shell commands: ip addr, ping (ICMP echo over a raw pcb) and
 * net-echo (a TCP echo service for tests). Commands that wait poll the
 * stack themselves and stop early on Ctrl-C from the console.
 */
#include <errno.h>
#include <string.h>

#include <lwip/icmp.h>
#include <lwip/inet_chksum.h>
#include <lwip/ip.h>
#include <lwip/prot/ip4.h>
#include <lwip/raw.h>
#include <lwip/sys.h>
#include <lwip/tcp.h>
#include <lwip/timeouts.h>

#include "arch.h"
#include "idle.h"
#include "net.h"
#include "net_priv.h"
#include "printk.h"
#include "shell.h"

/* Who computes the checksums, and what the CPU did with the data sent by reference (zero copy). */
static void ip_show_checksums(const struct netdev *nd, const struct net_if *ni)
{
	if (nd->features & (NETDEV_F_TX_CSUM | NETDEV_F_RX_CSUM))
		kprintf("    checksum offload: TX %llu frames by the NIC; RX %llu checked good by the NIC, %llu bad\n",
			nd->stats.tx_csum, nd->stats.rx_csum_good, nd->stats.rx_csum_bad);
	else
		kprintf("    checksum offload: none (checksums in software)\n");
	if (ni)
		kprintf("    TX by reference: %llu bytes not touched by the CPU, %llu read by it\n",
			ni->tx_ref_untouched, ni->tx_ref_read);
}

static int cmd_ip(int argc, char **argv)
{
	static const char *const objects[] = { "addr", "a", NULL };

	if (shell_arg_keyword(argv[0], "object", shell_arg(argc, argv, 1), objects) < 0 ||
	    shell_args_max(argc, argv, 2))
		return -EINVAL;
	if (!netdev_count())
		kprintf("ip: no network interfaces\n");
	for (unsigned int i = 0; i < netdev_count(); i++) {
		struct netdev *nd = netdev_get(i);
		struct net_if *ni = nd->stack;
		char mac[18], a[16], g[16];
		kprintf("%u: %s: %s link/ether %s mtu %u (%s)\n", i + 1, nd->name,
			nd->ops->link_up(nd) ? "UP" : "DOWN", netdev_mac_str(nd->mac, mac), nd->mtu,
			nd->driver);
		if (ni && net_if_has_addr(ni)) {
			u32 m = lwip_ntohl(ip4_addr_get_u32(netif_ip4_netmask(&ni->netif)));
			kprintf("    inet %s/%d gateway %s (%s)\n",
				ip4addr_ntoa_r(netif_ip4_addr(&ni->netif), a, sizeof(a)),
				m ? 32 - __builtin_ctz(m) : 0,
				ip4addr_ntoa_r(netif_ip4_gw(&ni->netif), g, sizeof(g)),
				ni->mode == IPCONFIG_STATIC ? "ip=" : "DHCP");
		} else {
			kprintf("    no address%s\n", ni && ni->mode == IPCONFIG_DHCP ? " (DHCP asking)" : "");
		}
		kprintf("    RX %llu frames %llu bytes %llu dropped; TX %llu frames %llu bytes %llu ring-full\n",
			nd->stats.rx_frames, nd->stats.rx_bytes, nd->stats.rx_dropped + (ni ? ni->rx_nomem : 0),
			nd->stats.tx_frames, nd->stats.tx_bytes, nd->stats.tx_busy);
		ip_show_checksums(nd, ni);
	}
	return 0;
}
SHELL_COMMAND_NET(SHELL_NET, "ip", cmd_ip, "ip addr", "network interfaces: MAC, link, address, counters");

/* ---- ping ---- */

#define PING_ID 0x706d	/* "pm" */
#define PING_DATA 56

static struct {
	u16 seq;		/* the request outstanding */
	bool replied;
	ip_addr_t from;
} ping_state;

/* Raw ICMP input: eat echo replies with our id and the outstanding sequence number. */
static u8 ping_recv(void *arg, struct raw_pcb *pcb, struct pbuf *p, const ip_addr_t *addr)
{
	struct icmp_echo_hdr h;

	(void)arg;
	(void)pcb;
	if (p->tot_len < IP_HLEN)
		return 0;
	u16 hlen = (u16)(IPH_HL((struct ip_hdr *)p->payload) * 4);
	if (p->len < IP_HLEN || pbuf_copy_partial(p, &h, sizeof(h), hlen) != sizeof(h))
		return 0;
	if (h.type != ICMP_ER || h.id != lwip_htons(PING_ID))
		return 0;
	if (lwip_ntohs(h.seqno) == ping_state.seq) {
		ping_state.replied = true;
		ip_addr_copy(ping_state.from, *addr);
	}
	pbuf_free(p);
	return 1;
}

static err_t ping_send(struct raw_pcb *pcb, const ip_addr_t *to, u16 seq)
{
	u16 len = sizeof(struct icmp_echo_hdr) + PING_DATA;
	struct pbuf *p = pbuf_alloc(PBUF_IP, len, PBUF_RAM);

	if (!p)
		return ERR_MEM;
	struct icmp_echo_hdr *h = p->payload;
	h->type = ICMP_ECHO;
	h->code = 0;
	h->chksum = 0;
	h->id = lwip_htons(PING_ID);
	h->seqno = lwip_htons(seq);
	for (u16 i = 0; i < PING_DATA; i++)
		((u8 *)(h + 1))[i] = (u8)i;
	h->chksum = inet_chksum(h, len);
	err_t e = raw_sendto(pcb, p, to);
	pbuf_free(p);
	return e;
}

/* [-c COUNT] A.B.C.D: 0, else one line and the usage. */
static int ping_args(int argc, char **argv, unsigned int *count, const char **host, u32 *a)
{
	for (int i = 1; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-c", NULL)) {
			const char *v = shell_arg_value(argc, argv, &i);
			if (!v || shell_arg_u32(argv[0], "count", v, 1, 1000, count))
				return -EINVAL;
		} else if (*host || argv[i][0] == '-') {
			return shell_arg_unexpected(argv[0], argv[i]);
		} else {
			*host = argv[i];
		}
	}
	if (!*host)
		return shell_arg_error(argv[0], "missing address");
	if (!ipv4_parse(*host, a))
		return shell_arg_error(argv[0], "address '%s': not an IPv4 address", *host);
	return 0;
}

static int cmd_ping(int argc, char **argv)
{
	unsigned int count = 3, received = 0;
	const char *host = NULL;
	ip_addr_t to;
	u32 a;

	if (ping_args(argc, argv, &count, &host, &a))
		return -EINVAL;
	if (!net_nr_ifs) {
		kprintf("ping: no network interface is up\n");
		return -ENETDOWN;
	}
	ip_addr_set_ip4_u32(&to, lwip_htonl(a));
	struct raw_pcb *pcb = raw_new(IP_PROTO_ICMP);
	if (!pcb) {
		kprintf("ping: no raw pcb free\n");
		return -ENOMEM;
	}
	raw_recv(pcb, ping_recv, NULL);
	raw_bind(pcb, IP_ADDR_ANY);
	for (unsigned int seq = 1; seq <= count; seq++) {
		ping_state.seq = (u16)seq;
		ping_state.replied = false;
		u32 t0 = sys_now();
		u64 c0 = arch_cycles();
		err_t e = ping_send(pcb, &to, (u16)seq);
		if (e != ERR_OK)
			kprintf("ping: %s: send failed (lwIP error %d)\n", host, e);
		while (e == ERR_OK && !ping_state.replied && sys_now() - t0 < 1000 && !shell_interrupted())
			idle_wait(net_poll());
		if (ping_state.replied) {
			u64 us = arch_cycles_to_ns(arch_cycles() - c0) / 1000;
			char f[16];
			kprintf("%u bytes from %s: icmp_seq=%u time=%llu.%03llu ms\n",
				(unsigned int)(sizeof(struct icmp_echo_hdr) + PING_DATA),
				ipaddr_ntoa_r(&ping_state.from, f, sizeof(f)), seq, us / 1000, us % 1000);
			received++;
		} else if (e == ERR_OK) {
			kprintf("ping: %s: no reply to icmp_seq=%u\n", host, seq);
		}
		while (seq < count && sys_now() - t0 < 1000)	/* one request a second */
			idle_wait(net_poll());
	}
	raw_remove(pcb);
	kprintf("ping: %s: %u sent, %u received\n", host, count, received);
	return received ? 0 : -EHOSTUNREACH;
}
SHELL_COMMAND_NET_LOOP(SHELL_NET, "ping", cmd_ping, "ping [-c COUNT] A.B.C.D",
	      "ICMP echo requests, one a second (3 unless -c), each waits 1 s for its reply");

/* ---- net-echo ---- */

static unsigned int echo_closed;
static u64 echo_bytes;

/* ERR_ABRT when the close failed and the pcb was aborted instead. */
static err_t echo_close(struct tcp_pcb *pcb)
{
	err_t e = ERR_OK;

	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	if (tcp_close(pcb) != ERR_OK) {
		tcp_abort(pcb);
		e = ERR_ABRT;
	}
	echo_closed++;
	return e;
}

/*
 * The client has finished sending: the connection counts as done once all
 * of the echo is acknowledged, so that "done" means delivered (a poweroff
 * right after net-echo used to cut the last of it off).
 */
static err_t echo_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	(void)arg;
	(void)len;
	return tcp_sndqueuelen(pcb) ? ERR_OK : echo_close(pcb);
}

/* Echo what arrives; ERR_MEM (lwIP keeps the data and offers it again) when the send buffer is full. */
static err_t echo_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg;
	if (!p || err != ERR_OK) {
		if (p)
			pbuf_free(p);
		if (!p && err == ERR_OK && tcp_sndqueuelen(pcb)) {
			tcp_recv(pcb, NULL);
			tcp_sent(pcb, echo_sent);
			return ERR_OK;
		}
		return echo_close(pcb);
	}
	if (tcp_sndbuf(pcb) < p->tot_len || tcp_sndqueuelen(pcb) + pbuf_clen(p) > TCP_SND_QUEUELEN)
		return ERR_MEM;	/* nothing queued: lwIP offers the same data again later */
	for (struct pbuf *q = p; q; q = q->next) {
		if (tcp_write(pcb, q->payload, q->len, TCP_WRITE_FLAG_COPY) != ERR_OK) {
			/* Part of it may be queued: offering it again would echo that twice. */
			kprintf("net-echo: out of memory queueing the echo, connection aborted\n");
			pbuf_free(p);
			tcp_arg(pcb, NULL);
			tcp_err(pcb, NULL);
			tcp_abort(pcb);
			echo_closed++;
			return ERR_ABRT;
		}
	}
	tcp_recved(pcb, p->tot_len);
	echo_bytes += p->tot_len;
	pbuf_free(p);
	tcp_output(pcb);
	return ERR_OK;
}

static void echo_err(void *arg, err_t err)
{
	(void)arg;
	(void)err;
	echo_closed++;	/* the pcb is already gone */
}

static err_t echo_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	char a[16];
	kprintf("net-echo: connection from %s:%u\n",
		ipaddr_ntoa_r(&pcb->remote_ip, a, sizeof(a)), pcb->remote_port);
	tcp_recv(pcb, echo_recv);
	tcp_err(pcb, echo_err);
	return ERR_OK;
}

static int cmd_net_echo(int argc, char **argv)
{
	u32 port, conns = 1;

	if (shell_arg_u32(argv[0], "port", shell_arg(argc, argv, 1), 1, 65535, &port) ||
	    shell_opt_u32(argc, argv, 2, "connections", 1, ~0u, &conns) ||
	    shell_args_max(argc, argv, 3))
		return -EINVAL;
	if (!net_nr_ifs) {
		kprintf("net-echo: no network interface is up\n");
		return -ENETDOWN;
	}
	struct tcp_pcb *l = tcp_new();
	if (l)
		ip_set_option(l, SOF_REUSEADDR);	/* the last run's connection may linger */
	if (!l || tcp_bind(l, IP_ANY_TYPE, (u16)port) != ERR_OK) {
		kprintf("net-echo: cannot bind port %u\n", port);
		if (l)
			tcp_close(l);
		return -EADDRINUSE;
	}
	struct tcp_pcb *listener = tcp_listen(l);
	if (!listener) {
		tcp_close(l);
		kprintf("net-echo: cannot listen\n");
		return -ENOMEM;
	}
	tcp_accept(listener, echo_accept);
	echo_closed = 0;
	echo_bytes = 0;
	kprintf("net-echo: listening on port %u for %u connection%s (Ctrl-C stops)\n", port, conns,
		conns == 1 ? "" : "s");
	bool stopped = false;
	while (echo_closed < conns && !(stopped = shell_interrupted()))
		idle_wait(net_poll());
	tcp_close(listener);
	kprintf("net-echo: %s after %u connection%s, %llu bytes echoed\n",
		stopped ? "stopped" : "done", echo_closed, echo_closed == 1 ? "" : "s", echo_bytes);
	return stopped ? -EINTR : 0;
}
SHELL_COMMAND_NET_LOOP(SHELL_NET, "net-echo", cmd_net_echo, "net-echo PORT [CONNECTIONS]",
	      "TCP echo service on PORT until CONNECTIONS (1) clients have closed");
