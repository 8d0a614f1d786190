/* What net/'s files share: the interfaces lwIP knows, one per netdev. */
#ifndef PMEMK_NET_PRIV_H
#define PMEMK_NET_PRIV_H

#include <lwip/netif.h>

#include "net.h"
#include "netdev.h"

struct net_if {
	struct netif netif;
	struct netdev *nd;
	enum ipconfig_mode mode;
	bool link;
	u32 announced;		/* the address last printed (DHCP) */
	u64 tx_linearized;	/* frames with too many fragments (or headers split), copied once */
	/* Bytes sent by reference (zero copy: PBUF_ROM/REF), per frame sent: */
	u64 tx_ref_untouched;	/* the NIC computed the checksum: the CPU never read them */
	u64 tx_ref_read;	/* the CPU read them: lwIP's checksum, or a linearizing copy */
	u64 tx_dropped;		/* the NIC's ring stayed full, or no memory */
	u64 rx_nomem;		/* no pbuf for a received frame */
};

extern struct net_if net_ifs[NETDEV_MAX];
extern unsigned int net_nr_ifs;

bool net_if_has_addr(const struct net_if *ni);

/*
 * lwIP, the NIC rings and the NBD tables belong to the boot CPU (net_poll
 * is its idle work; nothing there locks): true there; elsewhere false
 * after one line naming what was refused.
 */
bool net_on_its_cpu(const char *what);

#endif
