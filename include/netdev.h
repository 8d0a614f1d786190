/*
 * The netdev interface: what a NIC driver offers the network stack, and
 * nothing about PCI or lwIP. A frame is sent as a list of fragments given by
 * physical address and length, so that data can go to the NIC from wherever
 * it lies (later: pmem pages named by pfn_t) without being copied; the
 * fragments must stay untouched until the driver reports the send done with
 * tx_done(cookie). Received frames are handed to rx() in the driver's own
 * buffers, which are reused once rx() returns.
 *
 * pmemk polls: netdev_poll_all() (from the shell's idle loop and from
 * commands that wait) reaps each NIC's finished sends and delivers what it
 * received. Nothing runs in interrupt context.
 *
 * Checksum offload: a driver whose device computes checksums says so in
 * nd->features; the stack then leaves them to it. NETDEV_F_TX_CSUM: the
 * stack prepares an IPv4 frame's headers (netdev_csum_prepare) and sends
 * it with xmit_csum, and the device fills in the IPv4 header checksum and
 * the TCP checksum. NETDEV_F_RX_CSUM: the driver hands each frame to
 * rx_csum with the checksums the device checked and found good, and drops
 * (and counts) the frames it found bad; what the device did not check, the
 * stack checks itself.
 */
#ifndef PMEMK_NETDEV_H
#define PMEMK_NETDEV_H

#include "types.h"

#define NETDEV_MAX 4
#define NETDEV_MAX_FRAGS 16	/* fragments of one frame */
#define ETH_ALEN 6
#define ETH_FRAME_MAX 1514	/* without the FCS: 14-byte header + 1500 */

/* nd->features: what the device does for the stack. */
#define NETDEV_F_TX_CSUM (1u << 0)	/* inserts IPv4 header and TCP checksums (xmit_csum) */
#define NETDEV_F_RX_CSUM (1u << 1)	/* checks received IPv4 and TCP/UDP checksums (rx_csum) */

/* rx_csum's good: the checksums the device checked and found right. */
#define NETDEV_RX_IP_GOOD (1u << 0)	/* the IPv4 header checksum */
#define NETDEV_RX_L4_GOOD (1u << 1)	/* the TCP or UDP checksum */

struct netdev_frag {
	u64 pa;		/* physical address; the driver gives it to the device as is */
	u32 len;
};

/*
 * The checksums a device inserts into one frame (offsets from the frame's
 * first byte). The device sums the IPv4 header, [ip_start, ip_start +
 * ip_len), with its checksum field zero, and stores the complement in
 * that field (ip_start + 10); with tcp, it sums [tcp_start, end of frame)
 * and stores the complement at tcp_sum, where the stack left the
 * pseudo-header's sum (RFC 793 §3.1; 8254x manual §3.3.5).
 */
struct netdev_csum {
	u16 ip_start, ip_len;
	u16 tcp_start, tcp_sum;
	bool tcp;
};

struct netdev;

struct netdev_ops {
	/*
	 * Queue one frame of nr fragments (total ETH_FRAME_MAX at most).
	 * Returns 0 (tx_done(cookie) follows from a later poll), -EAGAIN when
	 * the ring is full (nothing queued: try again after a poll), or
	 * -EINVAL for a frame the device cannot take.
	 */
	int (*xmit)(struct netdev *nd, const struct netdev_frag *frags, unsigned int nr,
		    void *cookie);
	/*
	 * Optional: hand the device every frame queued since the last flush.
	 * A driver with one costly doorbell per batch (e1000's transmit tail)
	 * rings it here, not in xmit; the device may not see a frame before
	 * the next flush or poll. net_poll flushes after each pass.
	 */
	void (*flush)(struct netdev *nd);
	/*
	 * With NETDEV_F_TX_CSUM: as xmit, and the device fills in the
	 * checksums csum names (the frame's headers as netdev_csum_prepare
	 * left them).
	 */
	int (*xmit_csum)(struct netdev *nd, const struct netdev_frag *frags, unsigned int nr,
			 const struct netdev_csum *csum, void *cookie);
	/*
	 * Reap finished sends and deliver up to budget received frames;
	 * returns the work done (frames delivered and sends reaped), 0 when
	 * there was none.
	 */
	unsigned int (*poll)(struct netdev *nd, unsigned int budget);
	bool (*link_up)(struct netdev *nd);
	/*
	 * Optional, both or neither: the interrupt that ends the boot CPU's
	 * idle halt (arch_idle). wake_arm turns it on for received frames and
	 * finished sends and returns true; false when a poll would find work
	 * already. wake_disarm turns it off again: polling needs none.
	 */
	bool (*wake_arm)(struct netdev *nd);
	void (*wake_disarm)(struct netdev *nd);
};

struct netdev_stats {
	u64 rx_frames, rx_bytes, rx_dropped;	/* dropped: bad length or errors flagged */
	u64 tx_frames, tx_bytes, tx_busy;	/* busy: xmit refused with -EAGAIN */
	u64 tx_csum;		/* frames whose checksums the device inserted */
	u64 rx_csum_good;	/* frames the device checked and found good */
	u64 rx_csum_bad;	/* frames dropped for a checksum the device found bad (in rx_dropped) */
};

struct netdev {
	char name[8];			/* eth0, eth1, ... (netdev_register) */
	const char *driver;		/* "virtio-net", "e1000" */
	u8 mac[ETH_ALEN];
	u16 mtu;
	const struct netdev_ops *ops;
	u32 features;			/* NETDEV_F_*, set by the driver before netdev_register */
	void *priv;			/* the driver's */
	/* Set by the stack before the first poll: */
	void (*rx)(struct netdev *nd, const void *frame, u32 len);
	/* With NETDEV_F_RX_CSUM, in place of rx: good is NETDEV_RX_*_GOOD bits (0: none checked). */
	void (*rx_csum)(struct netdev *nd, const void *frame, u32 len, unsigned int good);
	void (*tx_done)(struct netdev *nd, void *cookie);
	void *stack;			/* the stack's */
	struct netdev_stats stats;
};

/* Memory a NIC reaches by DMA: physically contiguous, zeroed, page aligned. */
struct netdev_dma {
	u64 pa;		/* 0: not allocated */
	void *va;
	unsigned int order;
};

/* Allocate at least bytes; -ENOMEM (d->pa stays 0) if the page allocator has no such block. */
int netdev_dma_alloc(struct netdev_dma *d, u64 bytes);
/* Give it back (nothing if never allocated); the device must no longer use it. */
void netdev_dma_free(struct netdev_dma *d);

/* Give the device a name (ethN, in registration order); -ENOSPC past NETDEV_MAX. */
int netdev_register(struct netdev *nd);
unsigned int netdev_count(void);
struct netdev *netdev_get(unsigned int i);
struct netdev *netdev_by_name(const char *name);
/* Every device's flush (those that have one). */
void netdev_flush_all(void);
/* Poll every registered device once; the work done (0: none). */
unsigned int netdev_poll_all(unsigned int budget);
/*
 * Arm every device's wake-up interrupt: true when each has one and none
 * has work waiting (the CPU may halt); false else, some maybe armed.
 * netdev_wake_disarm_all after either.
 */
bool netdev_wake_arm_all(void);
void netdev_wake_disarm_all(void);
/*
 * Ready an Ethernet frame for NETDEV_F_TX_CSUM: frame holds its first len
 * bytes (at least its headers). An IPv4 frame gets a zero header checksum
 * and, if it is TCP (not a fragment), the pseudo-header's sum in its TCP
 * checksum field; csum then says what the device must fill in, and 0 is
 * returned (tot_len: the whole frame's length, which the IPv4 total
 * length must not exceed). -ENOENT: not IPv4 (ARP), nothing to insert;
 * -EINVAL: headers malformed or not all within len (nothing changed).
 */
int netdev_csum_prepare(u8 *frame, u32 len, u32 tot_len, struct netdev_csum *csum);
/* The 16-bit ones'-complement sum of len bytes (RFC 1071), not complemented, added to sum. */
u32 netdev_csum_add(u32 sum, const void *data, u32 len);
/* Fold a 32-bit ones'-complement sum to 16 bits. */
u16 netdev_csum_fold(u32 sum);

/* "52:54:00:12:34:56" into buf (at least 18 bytes). */
const char *netdev_mac_str(const u8 *mac, char *buf);

#endif
