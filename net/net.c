/*
 * The glue between netdevs and lwIP (NO_SYS=1, raw API): one lwIP netif per
 * netdev, frames in and out, address configuration from ip= or DHCP, and
 * the polling loop. Sends go to the NIC without a copy: the pbuf chain
 * becomes the fragment list and is held (pbuf_ref) until the NIC reports
 * it done; lwIP then does not rewrite a TCP segment still in flight
 * (tcp_output_segment_busy). Received frames are copied into a pool pbuf.
 *
 * Checksums: on a NIC that inserts them (NETDEV_F_TX_CSUM) lwIP leaves the
 * IPv4 header and TCP checksums out (its per-netif flags) and linkoutput
 * has the NIC fill them in, so data sent by reference (a zero-copy NBD
 * READ) is never read by the CPU; on one that checks them
 * (NETDEV_F_RX_CSUM) lwIP skips, frame by frame, the checks the NIC made.
 * Elsewhere (virtio-net on QEMU's user network) lwIP computes them all.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lwip/dhcp.h>
#include <lwip/etharp.h>
#include <lwip/init.h>
#include <lwip/netif.h>
#include <lwip/pbuf.h>
#include <lwip/sys.h>
#include <lwip/timeouts.h>
#include <netif/ethernet.h>

#include "api_files.h"
#include "arch.h"
#include "idle.h"
#include "memlayout.h"
#include "nbd_keys.h"
#include "net.h"
#include "net_priv.h"
#include "netdev.h"
#include "params.h"
#include "pgtable.h"
#include "printk.h"

struct net_if net_ifs[NETDEV_MAX];
unsigned int net_nr_ifs;
static struct ipconfig ipcfg;	/* zeroed: DHCP */
static bool net_ready;

static int ip_param(const char *val)
{
	char err[160];

	if (ipconfig_parse(val, &ipcfg, err, sizeof(err))) {
		pr_err("%s; using DHCP\n", err);
		memset(&ipcfg, 0, sizeof(ipcfg));
		return -EINVAL;
	}
	return 0;
}
KERNEL_PARAM("ip", ip_param,
	     "network address: dhcp (default), off, or ADDR::GW:MASK:HOST:DEV:off (Linux's ip=)");

static void tx_done(struct netdev *nd, void *cookie)
{
	(void)nd;
	pbuf_free(cookie);
}

/*
 * The physical address the NIC reads a fragment from. lwIP's pools (kernel
 * image), its heap and pfn/raw exports (direct map) translate by offset; a
 * devdax export's zero-copy READ data lies in its devdax mapping
 * (nd_dax.h), which maps the device's range linearly, so one walk per
 * fragment is enough. False for an address nothing maps (never expected).
 */
static bool frag_phys(const void *va, u64 *pa)
{
	u64 v = (u64)va, flags;
	enum pg_level level;

	if (v >= DAX_MAP_BASE && v - DAX_MAP_BASE < DAX_MAP_SLOTS * DAX_MAP_SLOT_SIZE)
		return pgtable_walk(&kernel_pgtable, v, pa, &flags, &level);
	*pa = virt_to_phys(va);
	return true;
}

static err_t net_output_copy(struct net_if *ni, struct pbuf *p);

/* Bytes of the chain lwIP holds by reference (PBUF_ROM, PBUF_REF: zero-copy data). */
static u64 by_ref_bytes(const struct pbuf *p)
{
	u64 n = 0;

	for (; p; p = p->next)
		if (pbuf_match_allocsrc(p, PBUF_ROM))
			n += p->len;
	return n;
}

/*
 * On a NIC that inserts checksums: the frame's headers readied for it
 * (netdev_csum_prepare); true if csum is to be used, false for a frame
 * with none to insert (ARP). A frame whose headers do not lie in its first
 * pbuf is copied into one (ERR_OK and *copied, the copy sent); one that is
 * malformed is dropped (ERR_IF and *copied): lwIP has left its checksums out.
 */
static bool tx_csum_ready(struct net_if *ni, struct pbuf *p, struct netdev_csum *csum,
			  bool *copied, err_t *e)
{
	*copied = false;
	if (!(ni->nd->features & NETDEV_F_TX_CSUM))
		return false;
	int rc = netdev_csum_prepare(p->payload, p->len, p->tot_len, csum);
	if (rc == 0 || rc == -ENOENT)
		return rc == 0;
	*copied = true;
	if (p->next) {
		ni->tx_linearized++;
		*e = net_output_copy(ni, p);
	} else {
		ni->tx_dropped++;
		*e = ERR_IF;
	}
	return false;
}

/* lwIP's linkoutput: the pbuf chain as the frame's fragments. */
static err_t linkoutput(struct netif *netif, struct pbuf *p)
{
	struct net_if *ni = netif->state;
	struct netdev_frag frags[NETDEV_MAX_FRAGS];
	struct netdev_csum csum;
	unsigned int n = 0;
	bool copied;
	err_t e = ERR_OK;
	bool offload = tx_csum_ready(ni, p, &csum, &copied, &e);

	if (copied)
		return e;

	for (struct pbuf *q = p; q; q = q->next) {
		if (!q->len)
			continue;
		if (n == NETDEV_MAX_FRAGS) {
			ni->tx_linearized++;
			return net_output_copy(ni, p);
		}
		u64 pa;
		if (!frag_phys(q->payload, &pa)) {
			ni->tx_dropped++;
			return ERR_IF;
		}
		frags[n++] = (struct netdev_frag){ pa, q->len };
	}
	pbuf_ref(p);
	for (int tries = 0; tries < 1000; tries++) {
		int rc = offload ? ni->nd->ops->xmit_csum(ni->nd, frags, n, &csum, p)
				 : ni->nd->ops->xmit(ni->nd, frags, n, p);
		if (rc == 0) {
			/* Without the NIC's TCP checksum, lwIP read every byte of the segment for its own. */
			if (offload && csum.tcp)
				ni->tx_ref_untouched += by_ref_bytes(p);
			else
				ni->tx_ref_read += by_ref_bytes(p);
			return ERR_OK;
		}
		if (rc != -EAGAIN)
			break;
		ni->nd->ops->poll(ni->nd, 0);	/* reap finished sends, then again */
	}
	pbuf_free(p);
	ni->tx_dropped++;
	return ERR_IF;
}

/* A chain of more fragments than the NIC takes: one copy into a single pbuf. */
static err_t net_output_copy(struct net_if *ni, struct pbuf *p)
{
	struct pbuf *c = pbuf_clone(PBUF_RAW, PBUF_RAM, p);

	if (!c) {
		ni->tx_dropped++;
		return ERR_MEM;
	}
	ni->tx_ref_read += by_ref_bytes(p);	/* copied by the CPU */
	err_t e = linkoutput(&ni->netif, c);
	pbuf_free(c);
	return e;
}

static void rx(struct netdev *nd, const void *frame, u32 len)
{
	struct net_if *ni = nd->stack;
	struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16)len, PBUF_POOL);

	if (!p) {
		ni->rx_nomem++;
		return;
	}
	pbuf_take(p, frame, (u16)len);
	if (ni->netif.input(p, &ni->netif) != ERR_OK)
		pbuf_free(p);
}

#define RX_CHECKS (NETIF_CHECKSUM_CHECK_IP | NETIF_CHECKSUM_CHECK_TCP | NETIF_CHECKSUM_CHECK_UDP)

/*
 * A frame from a NIC that checks checksums: lwIP skips the checks the NIC
 * made and found good (it dropped those it found bad) while it handles
 * this frame, which it does before ethernet_input returns (NO_SYS).
 */
static void rx_csum(struct netdev *nd, const void *frame, u32 len, unsigned int good)
{
	struct net_if *ni = nd->stack;
	u16 flags = ni->netif.chksum_flags | RX_CHECKS;

	if (good & NETDEV_RX_IP_GOOD)
		flags &= (u16)~NETIF_CHECKSUM_CHECK_IP;
	if (good & NETDEV_RX_L4_GOOD)
		flags &= (u16)~(NETIF_CHECKSUM_CHECK_TCP | NETIF_CHECKSUM_CHECK_UDP);
	NETIF_SET_CHECKSUM_CTRL(&ni->netif, flags);
	rx(nd, frame, len);
	NETIF_SET_CHECKSUM_CTRL(&ni->netif, ni->netif.chksum_flags | RX_CHECKS);
}

/* lwIP computes the checksums the NIC does not insert (UDP, ICMP: always). */
static u16 tx_checksum_flags(const struct netdev *nd)
{
	u16 flags = NETIF_CHECKSUM_ENABLE_ALL;

	if (nd->features & NETDEV_F_TX_CSUM)
		flags &= (u16)~(NETIF_CHECKSUM_GEN_IP | NETIF_CHECKSUM_GEN_TCP);
	return flags;
}

static err_t netif_setup(struct netif *netif)
{
	struct net_if *ni = netif->state;

	netif->name[0] = 'e';
	netif->name[1] = 't';
	netif->hwaddr_len = ETH_HWADDR_LEN;
	memcpy(netif->hwaddr, ni->nd->mac, ETH_HWADDR_LEN);
	netif->mtu = ni->nd->mtu;
	netif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
	netif->output = etharp_output;
	netif->linkoutput = linkoutput;
	NETIF_SET_CHECKSUM_CTRL(netif, tx_checksum_flags(ni->nd));
	netif_set_hostname(netif, ipcfg.hostname[0] ? ipcfg.hostname : "pmemk");
	return ERR_OK;
}

static void print_addr(struct net_if *ni, const char *how)
{
	char a[16], m[16], g[16];

	pr_info("%s: %s/%s gateway %s (%s)\n", ni->nd->name,
		ip4addr_ntoa_r(netif_ip4_addr(&ni->netif), a, sizeof(a)),
		ip4addr_ntoa_r(netif_ip4_netmask(&ni->netif), m, sizeof(m)),
		ip4addr_ntoa_r(netif_ip4_gw(&ni->netif), g, sizeof(g)), how);
}

/* DHCP bound (or renewed with a new address): say so once per address. */
static void status_cb(struct netif *netif)
{
	struct net_if *ni = netif->state;
	u32 a = ip4_addr_get_u32(netif_ip4_addr(netif));

	if (a && a != ni->announced && ni->mode == IPCONFIG_DHCP) {
		ni->announced = a;
		print_addr(ni, "DHCP");
	}
}

static ip4_addr_t ip4(u32 host_order)
{
	ip4_addr_t a;

	ip4_addr_set_u32(&a, lwip_htonl(host_order));
	return a;
}

static void if_configure(struct net_if *ni, bool chosen)
{
	ni->mode = chosen ? ipcfg.mode : IPCONFIG_DHCP;
	if (ipcfg.mode == IPCONFIG_STATIC && !chosen)
		ni->mode = IPCONFIG_OFF;	/* a static ip= configures its device only */
	if (ni->mode == IPCONFIG_STATIC) {
		ip4_addr_t a = ip4(ipcfg.addr), m = ip4(ipcfg.mask), g = ip4(ipcfg.gw);
		netif_set_addr(&ni->netif, &a, &m, &g);
		print_addr(ni, "ip=");
		etharp_gratuitous(&ni->netif);	/* QEMU's slirp learns our MAC from it (FACTS-2 §5.2) */
	} else if (ni->mode == IPCONFIG_DHCP) {
		if (dhcp_start(&ni->netif) != ERR_OK)
			pr_err("%s: DHCP could not start\n", ni->nd->name);
	}
}

static void if_add(struct netdev *nd)
{
	struct net_if *ni = &net_ifs[net_nr_ifs];
	ip4_addr_t zero = { 0 };

	memset(ni, 0, sizeof(*ni));
	ni->nd = nd;
	nd->stack = ni;
	nd->rx = rx;
	nd->rx_csum = rx_csum;
	nd->tx_done = tx_done;
	if (!netif_add(&ni->netif, &zero, &zero, &zero, ni, netif_setup, ethernet_input)) {
		pr_err("%s: lwIP refused the interface\n", nd->name);
		return;
	}
	net_nr_ifs++;
	netif_set_status_callback(&ni->netif, status_cb);
	netif_set_up(&ni->netif);
	ni->link = nd->ops->link_up(nd);
	if (ni->link)
		netif_set_link_up(&ni->netif);
}

/* Follow each NIC's link state into lwIP. */
static void link_watch(void)
{
	for (unsigned int i = 0; i < net_nr_ifs; i++) {
		struct net_if *ni = &net_ifs[i];
		bool up = ni->nd->ops->link_up(ni->nd);
		if (up == ni->link)
			continue;
		ni->link = up;
		pr_info("%s: link %s\n", ni->nd->name, up ? "up" : "down");
		if (up)
			netif_set_link_up(&ni->netif);
		else
			netif_set_link_down(&ni->netif);
	}
}

unsigned int net_if_count(void)
{
	return net_nr_ifs;
}

bool net_on_its_cpu(const char *what)
{
	u32 cpu = arch_cpu_id();

	if (cpu == 0)
		return true;
	pr_err("%s: the network is CPU 0's, refused on CPU %u\n", what, cpu);
	return false;
}

bool net_poll(void)
{
	static u32 last_link_check;
	static bool off_cpu_said;

	if (!net_ready)
		return false;
	if (arch_cpu_id() != 0) {	/* a caller's bug: say it once, touch nothing */
		if (!off_cpu_said)
			net_on_its_cpu("net_poll");
		off_cpu_said = true;
		return false;
	}
	bool work = netdev_poll_all(64);
	/* After the pass's ACKs: one send each (the NBD server, the benchmark's raw TCP source). */
	for_each_registered(net_poll_pass, p)
		work |= (*p)->fn();
	sys_check_timeouts();
	netdev_flush_all();	/* everything the pass queued, one doorbell per NIC */
	u32 now = sys_now();
	if (now - last_link_check >= 500) {
		last_link_check = now;
		link_watch();
	}
	return work;
}
IDLE_WORK(net_poll, IDLE_BOOT_CPU);	/* lwIP and the NIC drivers are not SMP-safe */

bool net_if_has_addr(const struct net_if *ni)
{
	return ip4_addr_get_u32(netif_ip4_addr(&ni->netif)) != 0;
}

/* Wait for DHCP on the interfaces that use it, up to ms; true if all have an address. */
static bool net_wait_dhcp(u32 ms)
{
	u32 t0 = sys_now();

	for (;;) {
		bool all = true;
		for (unsigned int i = 0; i < net_nr_ifs; i++)
			if (net_ifs[i].mode == IPCONFIG_DHCP && !net_if_has_addr(&net_ifs[i]))
				all = false;
		if (all)
			return true;
		if (sys_now() - t0 >= ms)
			return false;
		net_poll();
	}
}

void net_init(void)
{
	/* Whether or not there is a network: a key file must not stay in memory. */
	nbd_keys_load();
	api_files_load();
	if (!netdev_count() || ipcfg.mode == IPCONFIG_OFF) {
		if (netdev_count())
			pr_info("net: ip=off, NICs left unconfigured\n");
		nbd_boot();	/* exports configured, not served */
		if (api_enabled())
			pr_info("api: no network interface is up: the HTTPS API is not served\n");
		return;
	}
	lwip_init();
	struct netdev *chosen = ipcfg.device[0] ? netdev_by_name(ipcfg.device) : netdev_get(0);
	if (!chosen) {
		pr_err("net: ip= names device %s, which does not exist; using %s\n", ipcfg.device,
		       netdev_get(0)->name);
		chosen = netdev_get(0);
	}
	for (unsigned int i = 0; i < netdev_count(); i++)
		if_add(netdev_get(i));
	net_ready = true;
	for (unsigned int i = 0; i < net_nr_ifs; i++) {
		if_configure(&net_ifs[i], net_ifs[i].nd == chosen);
		if (net_ifs[i].nd == chosen)
			netif_set_default(&net_ifs[i].netif);
	}
	/* run= and ktest= come next and may need the address: give DHCP a few seconds. */
	if (!net_wait_dhcp(5000))
		pr_warn("net: no DHCP answer within 5 s, still asking in the background\n");
	nbd_boot();
	api_boot();
}
