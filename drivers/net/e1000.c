/*
 * e1000: the Intel 82540EM (8086:100e), QEMU's default NIC for `pc`
 * (Intel PCI/PCI-X Family of Gigabit Ethernet Controllers Software
 * Developer's Manual, 317453: §13 registers, §3.2 receive and §3.3
 * transmit descriptors, §14 initialisation; QEMU's model in FACTS-2 §5.3).
 * Polled: poll() reads the descriptors' DD bits. The 82540EM has no MSI,
 * so the wake-up of the boot CPU's idle halt is its INTx line (through
 * the I/O APIC, pci_intx_wake): e1000_wake_arm enables the receive,
 * transmit and link causes only around a halt; every other time every
 * cause is masked. Legacy receive descriptors, 2 KiB receive buffers (a
 * frame of at most 1518 bytes fits one), one transmit descriptor per
 * fragment.
 *
 * Checksum offload (e1000.csum=on, the default): an IPv4 frame goes out
 * as TCP/IP data descriptors (§3.3.7) whose POPTS ask the device to insert
 * the IPv4 header checksum (IXSM) and the TCP checksum (TXSM), at the
 * offsets of the last TCP/IP context descriptor (§3.3.6), which is queued
 * again only when they change; other frames go as legacy descriptors
 * (§3.3.3). On receive, RXCSUM has the device check IPv4 and TCP/UDP
 * checksums (§13.4.20) and each descriptor says which it checked and
 * whether they were good (§3.2.5, §3.2.6). QEMU's model honours the
 * context's IPCSS/IPCSO/IPCSE and TUCSS/TUCSO/TUCSE and the POPTS of a
 * frame's first data descriptor; it checks nothing on receive and says so
 * (IXSM, "ignore checksum indication"), so there the stack checks
 * received checksums itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "netdev.h"
#include "params.h"
#include "pci.h"
#include "printk.h"

#define E1000_CTRL 0x0000
#define E1000_STATUS 0x0008
#define E1000_EERD 0x0014
#define E1000_ICR 0x00C0
#define E1000_IMS 0x00D0
#define E1000_IMC 0x00D8
#define E1000_RCTL 0x0100
#define E1000_TCTL 0x0400
#define E1000_TIPG 0x0410
#define E1000_RDBAL 0x2800
#define E1000_RDBAH 0x2804
#define E1000_RDLEN 0x2808
#define E1000_RDH 0x2810
#define E1000_RDT 0x2818
#define E1000_TDBAL 0x3800
#define E1000_TDBAH 0x3804
#define E1000_TDLEN 0x3808
#define E1000_TDH 0x3810
#define E1000_TDT 0x3818
#define E1000_RXCSUM 0x5000
#define E1000_MTA 0x5200
#define E1000_RAL0 0x5400
#define E1000_RAH0 0x5404

#define CTRL_ASDE (1u << 5)
#define CTRL_SLU (1u << 6)
#define CTRL_RST (1u << 26)
#define STATUS_LU (1u << 1)
#define EERD_START 1u
#define EERD_DONE (1u << 4)
#define RAH_AV (1u << 31)
#define RCTL_EN (1u << 1)
#define RCTL_BAM (1u << 15)
#define RCTL_SECRC (1u << 26)	/* strip the FCS; BSIZE 00 = 2048 bytes */
#define TCTL_EN (1u << 1)
#define TCTL_PSP (1u << 3)
#define TCTL_CT(x) ((u32)(x) << 4)
#define TCTL_COLD(x) ((u32)(x) << 12)
#define TIPG_82540 (10u | 8u << 10 | 6u << 20)	/* IPGT, IPGR1, IPGR2 for copper (§13.4.34) */
#define RXCSUM_IPOFLD (1u << 8)
#define RXCSUM_TUOFLD (1u << 9)

/* Interrupt causes (§13.4.17-13.4.21): ICR reads and clears them, IMS enables, IMC disables. */
#define ICR_TXDW (1u << 0)	/* transmit descriptor written back */
#define ICR_LSC (1u << 2)	/* link status change */
#define ICR_RXO (1u << 6)	/* receiver overrun */
#define ICR_RXT0 (1u << 7)	/* receiver timer: a frame arrived (RDTR 0: at once) */
#define E1000_WAKE_CAUSES (ICR_TXDW | ICR_LSC | ICR_RXO | ICR_RXT0)

#define RXD_STAT_DD 0x01
#define RXD_STAT_EOP 0x02
#define RXD_STAT_IXSM 0x04	/* ignore the checksum bits (QEMU sets it on every frame) */
#define RXD_STAT_TCPCS 0x20	/* TCP/UDP checksum checked */
#define RXD_STAT_IPCS 0x40	/* IPv4 header checksum checked */
#define RXD_ERR_TCPE 0x20	/* ... and found bad */
#define RXD_ERR_IPE 0x40
#define TXD_CMD_EOP 0x01
#define TXD_CMD_IFCS 0x02
#define TXD_CMD_RS 0x08
#define TXD_CMD_DEXT 0x20	/* an extended descriptor: context or data, by DTYP */
#define TXD_STAT_DD 0x01
#define TXD_DTYP_DATA (1u << 20)	/* context: DTYP 0 */
#define TXD_CTX_TCP (1u << 24)	/* TUCMD: TCP (not UDP), IPv4 (not IPv6) */
#define TXD_CTX_IP (1u << 25)
#define TXD_POPTS_IXSM 0x01	/* insert the IPv4 header checksum */
#define TXD_POPTS_TXSM 0x02	/* insert the TCP/UDP checksum */

struct e1000_rx_desc {
	u64 addr;
	u16 length;
	u16 csum;
	u8 status;
	u8 errors;
	u16 special;
};

struct e1000_tx_desc {
	u64 addr;
	u16 length;
	u8 cso;
	u8 cmd;
	u8 status;
	u8 css;
	u16 special;
};

/* TCP/IP context descriptor (§3.3.6): where the checksums of the frames after it go. */
struct e1000_ctx_desc {
	u8 ipcss, ipcso;	/* IPv4 header: start, checksum field */
	u16 ipcse;		/* ... its last byte (inclusive) */
	u8 tucss, tucso;	/* TCP: start, checksum field */
	u16 tucse;		/* ... last byte; 0: the end of the frame */
	u32 cmd_len;		/* PAYLEN (TSO only), DTYP 0, TUCMD */
	u8 status, hdrlen;	/* status at the same byte as every descriptor's */
	u16 mss;
};

/* TCP/IP data descriptor (§3.3.7): a legacy descriptor's fields, DTYP 1, and POPTS. */
struct e1000_data_desc {
	u64 addr;
	u32 cmd_len;		/* DTALEN 19:0, DTYP 23:20, DCMD 31:24 (legacy CMD's bits + DEXT) */
	u8 status, popts;
	u16 special;
};

_Static_assert(sizeof(struct e1000_tx_desc) == 16 && sizeof(struct e1000_ctx_desc) == 16 &&
		       sizeof(struct e1000_data_desc) == 16,
	       "transmit descriptors are 16 bytes");

#define E1000_NDESC 128		/* both rings; 128 x 16 bytes, a multiple of 128 (§13.4.27) */
#define E1000_RXBUF 2048

struct e1000 {
	struct netdev nd;
	struct pci_dev *pci;
	volatile u8 *regs;
	volatile struct e1000_rx_desc *rx;
	volatile struct e1000_tx_desc *tx;
	struct netdev_dma rx_ring, tx_ring, rxbuf;
	unsigned int rx_next;		/* next descriptor the device fills */
	unsigned int tx_tail;		/* next free descriptor */
	unsigned int tx_kicked;		/* the tail the device was last given (TDT) */
	unsigned int tx_clean;		/* first descriptor of the oldest frame in flight */
	unsigned int tx_used;
	u16 tx_last[E1000_NDESC];	/* per frame's first descriptor: its last one */
	void *tx_cookie[E1000_NDESC];
	struct netdev_csum ctx;		/* the offsets of the last context descriptor queued */
	bool ctx_valid;
	struct arch_intx intx;		/* the INTx line, when can_wake */
	bool can_wake;
};

static struct e1000 e1000s[NETDEV_MAX];
static unsigned int nr_e1000s;

static int e1000_csum = 1;	/* e1000.csum=: 0 off, 1 on */
KERNEL_PARAM_CHOICE("e1000.csum", e1000_csum, 1,
		    "on (default): the e1000 inserts and checks IPv4 and TCP checksums; off: the stack computes them",
		    "off", "on");

static inline u32 rd(struct e1000 *e, u32 reg)
{
	return *(volatile u32 *)(e->regs + reg);
}

static inline void wr(struct e1000 *e, u32 reg, u32 v)
{
	*(volatile u32 *)(e->regs + reg) = v;
}

static bool e1000_link_up(struct netdev *nd)
{
	struct e1000 *e = nd->priv;

	return rd(e, E1000_STATUS) & STATUS_LU;
}

/*
 * Give the device the descriptors queued since the last time: one write of
 * TDT for a batch (§3.4, the transmit ring's head and tail). Under QEMU that write is where the model
 * sends every frame up to the new tail, a trap under its global lock;
 * one per frame was most of the guest's time per frame (PERFORMANCE).
 */
static void e1000_flush(struct netdev *nd)
{
	struct e1000 *e = nd->priv;

	if (e->tx_kicked == e->tx_tail)
		return;
	arch_dma_wmb();		/* the descriptors before the tail that hands them over */
	wr(e, E1000_TDT, e->tx_tail);
	e->tx_kicked = e->tx_tail;
}

/* The frame's length, or 0 for fragments the device cannot take. */
static u64 frags_len(const struct netdev_frag *frags, unsigned int nr)
{
	u64 total = 0;

	if (!nr || nr > NETDEV_MAX_FRAGS)
		return 0;
	for (unsigned int i = 0; i < nr; i++) {
		if (!frags[i].len || frags[i].len > ETH_FRAME_MAX)
			return 0;
		total += frags[i].len;
	}
	return total > ETH_FRAME_MAX || total < 14 ? 0 : total;
}

/* Room for n more descriptors; else count it, hand the device what is queued, and false. */
static bool tx_room(struct e1000 *e, unsigned int n)
{
	if (E1000_NDESC - 1 - e->tx_used >= n)	/* one slot stays empty: TDT == TDH means idle */
		return true;
	e->nd.stats.tx_busy++;
	e1000_flush(&e->nd);	/* the device must see what fills the ring before a poll can reap it */
	return false;
}

/* Whether frames with csum need a context descriptor other than the last one queued. */
static bool ctx_differs(const struct e1000 *e, const struct netdev_csum *c)
{
	if (!e->ctx_valid || e->ctx.ip_start != c->ip_start || e->ctx.ip_len != c->ip_len)
		return true;
	return c->tcp && (!e->ctx.tcp || e->ctx.tcp_start != c->tcp_start ||
			  e->ctx.tcp_sum != c->tcp_sum);
}

/* The context descriptor at slot t for csum's offsets (§3.3.6). */
static void ctx_write(struct e1000 *e, unsigned int t, const struct netdev_csum *c)
{
	volatile struct e1000_ctx_desc *d = (volatile struct e1000_ctx_desc *)&e->tx[t];

	d->ipcss = (u8)c->ip_start;
	d->ipcso = (u8)(c->ip_start + 10);
	d->ipcse = (u16)(c->ip_start + c->ip_len - 1);
	d->tucss = (u8)c->tcp_start;
	d->tucso = (u8)c->tcp_sum;
	d->tucse = 0;
	d->cmd_len = (u32)TXD_CMD_DEXT << 24 | TXD_CTX_IP | (c->tcp ? TXD_CTX_TCP : 0);
	d->status = 0;
	d->hdrlen = 0;
	d->mss = 0;
	e->ctx = *c;
	e->ctx_valid = true;
}

/* One descriptor per fragment from slot first on; the first slot after them. */
static unsigned int frags_write(struct e1000 *e, unsigned int first, unsigned int t,
				const struct netdev_frag *frags, unsigned int nr, u8 popts)
{
	for (unsigned int i = 0; i < nr; i++) {
		u8 cmd = TXD_CMD_IFCS | (i + 1 == nr ? TXD_CMD_EOP | TXD_CMD_RS : 0);
		if (popts) {
			volatile struct e1000_data_desc *d = (volatile struct e1000_data_desc *)&e->tx[t];
			d->addr = frags[i].pa;
			d->cmd_len = frags[i].len | TXD_DTYP_DATA | (u32)(cmd | TXD_CMD_DEXT) << 24;
			d->status = 0;
			d->popts = popts;	/* the device reads it from a frame's first data descriptor */
			d->special = 0;
		} else {
			volatile struct e1000_tx_desc *d = &e->tx[t];
			d->addr = frags[i].pa;
			d->length = (u16)frags[i].len;
			d->cso = 0;
			d->css = 0;
			d->special = 0;
			d->status = 0;
			d->cmd = cmd;
		}
		e->tx_last[first] = (u16)t;
		t = (t + 1) % E1000_NDESC;
	}
	return t;
}

/* Queue a frame; csum NULL: legacy descriptors, the checksums are the stack's. */
static int tx_queue(struct netdev *nd, const struct netdev_frag *frags, unsigned int nr,
		    const struct netdev_csum *csum, void *cookie)
{
	struct e1000 *e = nd->priv;
	u64 total = frags_len(frags, nr);

	if (!total)
		return -EINVAL;
	bool ctx = csum && ctx_differs(e, csum);
	if (!tx_room(e, nr + ctx))
		return -EAGAIN;
	unsigned int first = e->tx_tail, t = first;
	if (ctx) {
		ctx_write(e, t, csum);
		t = (t + 1) % E1000_NDESC;
	}
	u8 popts = csum ? (u8)(TXD_POPTS_IXSM | (csum->tcp ? TXD_POPTS_TXSM : 0)) : 0;
	t = frags_write(e, first, t, frags, nr, popts);
	e->tx_cookie[first] = cookie;
	e->tx_used += nr + ctx;
	e->tx_tail = t;		/* handed over at the next flush */
	nd->stats.tx_frames++;
	nd->stats.tx_bytes += total;
	if (csum)
		nd->stats.tx_csum++;
	return 0;
}

static int e1000_xmit(struct netdev *nd, const struct netdev_frag *frags, unsigned int nr,
		      void *cookie)
{
	return tx_queue(nd, frags, nr, NULL, cookie);
}

static int e1000_xmit_csum(struct netdev *nd, const struct netdev_frag *frags, unsigned int nr,
			   const struct netdev_csum *csum, void *cookie)
{
	if (csum->ip_start + 10 > 255 || (csum->tcp && (csum->tcp_start > 255 || csum->tcp_sum > 255)))
		return -EINVAL;	/* IPCSS, IPCSO, TUCSS and TUCSO are bytes */
	return tx_queue(nd, frags, nr, csum, cookie);
}

/* Frames whose last descriptor has DD are done (RS asks for the write-back, §3.3.3). */
/* Finished frames back to the stack; how many. */
static unsigned int tx_reap(struct e1000 *e)
{
	unsigned int reaped = 0;

	while (e->tx_used) {
		unsigned int first = e->tx_clean, last = e->tx_last[first];
		if (!(e->tx[last].status & TXD_STAT_DD))
			break;
		arch_dma_rmb();
		unsigned int n = (last + E1000_NDESC - first) % E1000_NDESC + 1;
		e->tx_used -= n;
		e->tx_clean = (last + 1) % E1000_NDESC;
		void *cookie = e->tx_cookie[first];
		e->tx_cookie[first] = NULL;
		if (e->nd.tx_done)
			e->nd.tx_done(&e->nd, cookie);
		reaped++;
	}
	return reaped;
}

/* A good frame to the stack, with the checksums the device checked (none under IXSM). */
static void rx_deliver(struct e1000 *e, const void *frame, u16 len, u8 status)
{
	struct netdev *nd = &e->nd;
	unsigned int good = 0;

	nd->stats.rx_frames++;
	nd->stats.rx_bytes += len;
	if ((nd->features & NETDEV_F_RX_CSUM) && !(status & RXD_STAT_IXSM))
		good = (status & RXD_STAT_IPCS ? NETDEV_RX_IP_GOOD : 0) |
		       (status & RXD_STAT_TCPCS ? NETDEV_RX_L4_GOOD : 0);
	if (good)
		nd->stats.rx_csum_good++;
	if (nd->rx_csum && (nd->features & NETDEV_F_RX_CSUM))
		nd->rx_csum(nd, frame, len, good);
	else if (nd->rx)
		nd->rx(nd, frame, len);
}

static unsigned int e1000_poll(struct netdev *nd, unsigned int budget)
{
	struct e1000 *e = nd->priv;
	unsigned int done = 0;

	e1000_flush(nd);	/* frames queued outside a poll pass go now */
	unsigned int reaped = tx_reap(e);
	while (done < budget) {
		volatile struct e1000_rx_desc *d = &e->rx[e->rx_next];
		u8 status = d->status;
		if (!(status & RXD_STAT_DD))
			break;
		arch_dma_rmb();	/* DD before the length and the data */
		u16 len = d->length;
		u8 errors = d->errors;
		if (errors & (RXD_ERR_IPE | RXD_ERR_TCPE))
			nd->stats.rx_csum_bad++;
		if (!(status & RXD_STAT_EOP) || errors || len < 14 || len > E1000_RXBUF) {
			nd->stats.rx_dropped++;
		} else {
			rx_deliver(e, (u8 *)e->rxbuf.va + (u64)e->rx_next * E1000_RXBUF, len, status);
			e1000_flush(nd);	/* what that frame made lwIP send (an ACK) goes at once */
		}
		d->status = 0;
		arch_dma_wmb();
		wr(e, E1000_RDT, e->rx_next);	/* this one is the device's again */
		e->rx_next = (e->rx_next + 1) % E1000_NDESC;
		done++;
	}
	return done + reaped;
}

/* Would a poll find work: a received frame, or a frame in flight that is done? */
static bool e1000_work_waiting(struct e1000 *e)
{
	if (e->rx[e->rx_next].status & RXD_STAT_DD)
		return true;
	return e->tx_used && (e->tx[e->tx_last[e->tx_clean]].status & TXD_STAT_DD);
}

/*
 * The INTx line is level-triggered: asserted while ICR & IMS is not 0.
 * Old causes are read away first, then the wanted ones enabled and the
 * line unmasked; a frame that came before the ICR read is found by the
 * look at the rings, one after it asserts the line.
 */
static bool e1000_wake_arm(struct netdev *nd)
{
	struct e1000 *e = nd->priv;

	if (!e->can_wake)
		return false;
	(void)rd(e, E1000_ICR);
	wr(e, E1000_IMS, E1000_WAKE_CAUSES);
	arch_intx_mask(e->intx.gsi, false);
	return !e1000_work_waiting(e);
}

/* Every cause masked and read away (the line drops), then the line masked. */
static void e1000_wake_disarm(struct netdev *nd)
{
	struct e1000 *e = nd->priv;

	if (!e->can_wake)
		return;
	wr(e, E1000_IMC, 0xFFFFFFFF);
	(void)rd(e, E1000_ICR);
	arch_intx_mask(e->intx.gsi, true);
}

/*
 * The INTx line as the wake-up (pci_intx_wake), and the boot line's part
 * that says so: "INTx wake-up (GSI n)", or "polled (why)".
 */
static const char *e1000_wake_setup(struct e1000 *e, char *how, size_t len)
{
	int rc = pci_intx_wake(e->pci, &e->intx);

	e->can_wake = !rc;
	if (rc)
		snprintf(how, len, "polled (%s)", pci_intx_why(rc));
	else
		snprintf(how, len, "INTx wake-up (GSI %u)", e->intx.gsi);
	return how;
}

static const struct netdev_ops e1000_ops = {
	.xmit = e1000_xmit,
	.xmit_csum = e1000_xmit_csum,
	.flush = e1000_flush,
	.poll = e1000_poll,
	.link_up = e1000_link_up,
	.wake_arm = e1000_wake_arm,
	.wake_disarm = e1000_wake_disarm,
};

static bool e1000_match(const struct pci_dev *d)
{
	return d->vendor == 0x8086 && d->device == 0x100e;
}

/* The MAC: from RAL0/RAH0 if the EEPROM load filled them, else the EEPROM's words 0-2 (§5.6). */
static int read_mac(struct e1000 *e)
{
	u32 ral = rd(e, E1000_RAL0), rah = rd(e, E1000_RAH0);

	if (rah & RAH_AV) {
		for (unsigned int i = 0; i < 4; i++)
			e->nd.mac[i] = (u8)(ral >> (8 * i));
		e->nd.mac[4] = (u8)rah;
		e->nd.mac[5] = (u8)(rah >> 8);
		return 0;
	}
	for (u32 w = 0; w < 3; w++) {
		u32 v = 0;
		wr(e, E1000_EERD, w << 8 | EERD_START);
		for (unsigned int i = 0; !((v = rd(e, E1000_EERD)) & EERD_DONE); i++)
			if (i > 100000)
				return -EIO;
		e->nd.mac[2 * w] = (u8)(v >> 16);
		e->nd.mac[2 * w + 1] = (u8)(v >> 24);
	}
	wr(e, E1000_RAL0, e->nd.mac[0] | e->nd.mac[1] << 8 | e->nd.mac[2] << 16 |
				  (u32)e->nd.mac[3] << 24);
	wr(e, E1000_RAH0, e->nd.mac[4] | e->nd.mac[5] << 8 | RAH_AV);
	return 0;
}

static int rings_setup(struct e1000 *e)
{
	if (netdev_dma_alloc(&e->rx_ring, E1000_NDESC * sizeof(struct e1000_rx_desc)) ||
	    netdev_dma_alloc(&e->tx_ring, E1000_NDESC * sizeof(struct e1000_tx_desc)) ||
	    netdev_dma_alloc(&e->rxbuf, (u64)E1000_NDESC * E1000_RXBUF))
		return -ENOMEM;	/* nothing given to the device yet: the caller frees */
	u64 rx_pa = e->rx_ring.pa, tx_pa = e->tx_ring.pa;
	e->rx = e->rx_ring.va;
	e->tx = e->tx_ring.va;
	for (unsigned int i = 0; i < E1000_NDESC; i++)
		e->rx[i].addr = e->rxbuf.pa + (u64)i * E1000_RXBUF;
	/* Receive (§14.4): all but one descriptor to the device. */
	wr(e, E1000_RDBAL, (u32)rx_pa);
	wr(e, E1000_RDBAH, (u32)(rx_pa >> 32));
	wr(e, E1000_RDLEN, E1000_NDESC * sizeof(struct e1000_rx_desc));
	wr(e, E1000_RDH, 0);
	wr(e, E1000_RDT, E1000_NDESC - 1);
	/* Checksums checked on receive (RXCSUM before RCTL.EN, §13.4.20). */
	wr(e, E1000_RXCSUM, e1000_csum ? RXCSUM_IPOFLD | RXCSUM_TUOFLD : 0);
	wr(e, E1000_RCTL, RCTL_EN | RCTL_BAM | RCTL_SECRC);
	/* Transmit (§14.5): full duplex collision distance. */
	wr(e, E1000_TDBAL, (u32)tx_pa);
	wr(e, E1000_TDBAH, (u32)(tx_pa >> 32));
	wr(e, E1000_TDLEN, E1000_NDESC * sizeof(struct e1000_tx_desc));
	wr(e, E1000_TDH, 0);
	wr(e, E1000_TDT, 0);
	wr(e, E1000_TIPG, TIPG_82540);
	wr(e, E1000_TCTL, TCTL_EN | TCTL_PSP | TCTL_CT(0x0F) | TCTL_COLD(0x40));
	return 0;
}

/* Reset the device, so it forgets the rings, and free them. */
static void e1000_release(struct e1000 *e)
{
	wr(e, E1000_CTRL, rd(e, E1000_CTRL) | CTRL_RST);
	for (unsigned int i = 0; (rd(e, E1000_CTRL) & CTRL_RST) && i < 1000000; i++)
		;
	netdev_dma_free(&e->rx_ring);
	netdev_dma_free(&e->tx_ring);
	netdev_dma_free(&e->rxbuf);
}

static int e1000_probe(struct pci_dev *d)
{
	if (nr_e1000s == NETDEV_MAX)
		return -ENOSPC;
	struct e1000 *e = &e1000s[nr_e1000s];
	char name[8], mac[18];

	memset(e, 0, sizeof(*e));
	e->pci = d;
	e->nd.driver = "e1000";
	e->nd.ops = &e1000_ops;
	e->nd.priv = e;
	e->nd.mtu = 1500;
	e->nd.features = e1000_csum ? NETDEV_F_TX_CSUM | NETDEV_F_RX_CSUM : 0;
	pci_name(d, name);
	if (d->bar[0].type != PCI_BAR_MEM32 && d->bar[0].type != PCI_BAR_MEM64) {
		pr_err("e1000 %s: BAR0 is not a memory BAR\n", name);
		return -ENODEV;
	}
	if (d->bar[0].size < 0x20000) {
		pr_err("e1000 %s: BAR0 is %llu bytes, the registers need 128 KiB\n", name,
		       d->bar[0].size);
		return -ENODEV;
	}
	pci_enable(d, false, true);
	e->regs = pci_map_bar(d, 0);
	if (!e->regs)
		return -ENODEV;
	/* Reset (§14.3), then every interrupt masked: pmemk polls, and e1000_wake_arm enables some. */
	wr(e, E1000_CTRL, rd(e, E1000_CTRL) | CTRL_RST);
	for (unsigned int i = 0; rd(e, E1000_CTRL) & CTRL_RST; i++)
		if (i > 1000000) {
			pr_err("e1000 %s: does not come out of reset\n", name);
			return -EIO;
		}
	wr(e, E1000_IMC, 0xFFFFFFFF);
	(void)rd(e, E1000_ICR);
	wr(e, E1000_CTRL, (rd(e, E1000_CTRL) | CTRL_SLU | CTRL_ASDE) & ~(1u << 3 | 1u << 7 | 1u << 31));
	if (read_mac(e)) {
		pr_err("e1000 %s: EEPROM read of the MAC address timed out\n", name);
		return -EIO;
	}
	for (u32 i = 0; i < 128; i++)
		wr(e, E1000_MTA + 4 * i, 0);
	if (rings_setup(e)) {
		pr_err("e1000 %s: no memory for the rings\n", name);
		e1000_release(e);
		return -ENOMEM;
	}
	int rc = netdev_register(&e->nd);
	if (rc) {
		e1000_release(e);
		return rc;
	}
	nr_e1000s++;
	char how[80];
	pr_info("%s: e1000 at %s, MAC %s, %u-entry rings, checksum offload %s, %s, link %s\n",
		e->nd.name, name, netdev_mac_str(e->nd.mac, mac), E1000_NDESC,
		e1000_csum ? "on" : "off (e1000.csum=off)", e1000_wake_setup(e, how, sizeof(how)),
		e1000_link_up(&e->nd) ? "up" : "down");
	return 0;
}

static const struct pci_driver e1000_driver = {
	.name = "e1000",
	.match = e1000_match,
	.probe = e1000_probe,
};
PCI_DRIVER(e1000_driver);
