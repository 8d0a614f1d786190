/*
 * lwIP 2.1.3 configuration for pmemk (defaults and meanings: lwIP's
 * src/include/lwip/opt.h). NO_SYS=1: the network runs on one CPU (the
 * boot CPU's idle loop), no threads and no interrupts from NICs, so the
 * raw (callback) API driven from one polling loop (net_poll: the NICs'
 * receive rings, then sys_check_timeouts) is all it needs; no locks, no
 * mailboxes, no sequential API.
 */
#ifndef PMEMK_LWIPOPTS_H
#define PMEMK_LWIPOPTS_H

#define NO_SYS 1
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_TIMERS 1
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0

/* Protocols: IPv4, ARP, ICMP, raw (ping), UDP, TCP, DHCP. */
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ARP 1
#define LWIP_ETHERNET 1
#define LWIP_ICMP 1
#define LWIP_RAW 1
#define LWIP_UDP 1
#define LWIP_TCP 1
/* SOF_REUSEADDR: net-sink/net-source/net-echo bind a port again right after a connection on it closed. */
#define SO_REUSE 1
#define LWIP_DHCP 1
#define LWIP_DNS 0
#define LWIP_IGMP 0
#define LWIP_AUTOIP 0
#define IP_REASSEMBLY 0
#define IP_FRAG 0
/* QEMU's DHCP server is the only one on its network: no ARP probe of the offer (saves a second). */
#define DHCP_DOES_ARP_CHECK 0
#define ETHARP_SUPPORT_STATIC_ENTRIES 0

#define LWIP_NETIF_HOSTNAME 1
#define LWIP_NETIF_STATUS_CALLBACK 1
#define LWIP_NETIF_LINK_CALLBACK 1
#define LWIP_SINGLE_NETIF 0

/* Memory: lwIP's heap is newlib's malloc; pools are static arrays. */
#define MEM_LIBC_MALLOC 1
#define MEM_ALIGNMENT 8
#define MEMP_NUM_RAW_PCB 4
#define MEMP_NUM_UDP_PCB 8
/*
 * TCP PCBs: 32 NBD clients (nbd.max-clients at most), 8 connections
 * between SYN and accept (the NBD listener's backlog, TCP_LISTEN_BACKLOG:
 * a SYN flood holds at most these; further SYNs are dropped), and 8 for
 * the rest (net-echo, net-sink/net-source, connections closing, refused
 * ones waiting for their FIN). When none is free, lwIP takes back one in
 * TIME_WAIT, LAST_ACK or CLOSING, then the oldest of a lower priority
 * than the listener's: connections nbd.allow= refused are set to the
 * lowest, while clients keep the listener's, so a flood can never make
 * lwIP reset a client to make room. Accepted connections past the NBD
 * server's limits are reset at once (their PCB is freed), or take the
 * slot of one still in the handshake (nbd_server.c).
 * Listening PCBs: NBD, net-echo, net-sink or net-source, DHCP none; 8.
 */
#define MEMP_NUM_TCP_PCB 48
#define MEMP_NUM_TCP_PCB_LISTEN 8
#define TCP_LISTEN_BACKLOG 1
#define TCP_DEFAULT_LISTEN_BACKLOG 8	/* tcp_listen's; nbd_server.c names its own (8) */
#define PBUF_POOL_SIZE 512		/* received frames (copied in from the NIC's buffers) */

/* TCP: a window of 32 full segments, as much again queued for sending. */
#define TCP_MSS 1460
#define TCP_WND (32 * TCP_MSS)
#define TCP_SND_BUF (32 * TCP_MSS)
#define TCP_SND_QUEUELEN (4 * TCP_SND_BUF / TCP_MSS)
/*
 * Every connection may fill its send queue at once and keep it full (a
 * client that stops reading does): the pools that queue draws on are
 * sized for all of them, so a stuck client can never take what the
 * others need (issue 12 item 6; test nbd_slow_clients_do_not_stall_others).
 * PBUF_REF/ROM pbufs carry zero-copy data (NBD READ, net-source), one per
 * segment; segments, one per pbuf at most. About 450 KiB in all.
 */
#define MEMP_NUM_PBUF (MEMP_NUM_TCP_PCB * TCP_SND_QUEUELEN)
#define MEMP_NUM_TCP_SEG (MEMP_NUM_TCP_PCB * TCP_SND_QUEUELEN)
/*
 * Out-of-order segments wait in pool pbufs: a few per connection, so
 * 40 connections cannot drain the 512 (the NBD server copies what it has
 * received but cannot use yet out of the pool for the same reason).
 */
#define TCP_QUEUE_OOSEQ 1
#define TCP_OOSEQ_MAX_PBUFS 4
#define TCP_OOSEQ_MAX_BYTES (4 * TCP_MSS)
/* Per-PCB keepalive times (keep_idle, keep_intvl, keep_cnt): NBD clients set 60 s, 10 s, 6. */
#define LWIP_TCP_KEEPALIVE 1

/*
 * Checksums: lwIP's, unless the NIC inserts or checks them (per netif:
 * net.c sets each netif's flags from its netdev's features, the e1000's
 * offload; virtio-net's VIRTIO_NET_F_CSUM is not negotiated).
 */
#define LWIP_CHECKSUM_CTRL_PER_NETIF 1
#define LWIP_CHKSUM_ALGORITHM 3

#define LWIP_STATS 0
#define LWIP_DEBUG 0

#endif
