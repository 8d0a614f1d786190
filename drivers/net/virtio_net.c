/*
 * virtio-net over virtio 1.0 modern PCI (OASIS virtio 1.0 cs04: §4.1.4 the
 * PCI capabilities, §4.1.4.3 common configuration, §2.4 split virtqueues,
 * §3.1.1 initialisation, §5.1 network device; QEMU's device in FACTS-2
 * §5.3). Polled: the receive queue's used ring is read by poll(), finished
 * sends are reaped there too; the device is asked for no interrupt except
 * around the boot CPU's idle halt (wake_arm), which it ends through MSI-X
 * or, on a device without MSI-X, its INTx line (§4.1.4.5: the ISR status
 * read deasserts it).
 *
 * Queues: 0 receive, 1 transmit, each of VNET_QSIZE descriptors in one
 * physically contiguous block (descriptor table, available ring, used ring
 * at the next 4 KiB). Receive buffers are 2 KiB each, one descriptor each
 * (no MRG_RXBUF, no GSO: a frame is at most 1514 bytes plus the header).
 * A frame sent is the 12-byte header, from an array indexed by the chain's
 * first descriptor, then the caller's fragments, chained.
 *
 * The device is not trusted further than it must be: each queue's doorbell
 * must lie inside the notify structure (else the device is refused), and
 * the used rings may return only chain heads the device was given (else
 * the entry is ignored with one line; a used index running past the ring
 * ends the device's use).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "netdev.h"
#include "pci.h"
#include "printk.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_NET_TRANSITIONAL 0x1000	/* subsystem id 1 = network */
#define VIRTIO_NET_MODERN 0x1041	/* 0x1040 + device type 1 */

/* struct virtio_pci_cap (§4.1.4): in a vendor-specific capability. */
#define VIRTIO_CAP_CFG_TYPE 3
#define VIRTIO_CAP_BAR 4
#define VIRTIO_CAP_OFFSET 8
#define VIRTIO_CAP_LENGTH 12
#define VIRTIO_CAP_NOTIFY_MULT 16	/* struct virtio_pci_notify_cap */
#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG 3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4

/* struct virtio_pci_common_cfg (§4.1.4.3), offsets. */
#define VCOM_DFSELECT 0
#define VCOM_DF 4
#define VCOM_GFSELECT 8
#define VCOM_GF 12
#define VCOM_MSIX_CONFIG 16
#define VCOM_NUM_QUEUES 18
#define VCOM_STATUS 20
#define VCOM_Q_SELECT 22
#define VCOM_Q_SIZE 24
#define VCOM_Q_MSIX 26
#define VCOM_Q_ENABLE 28
#define VCOM_Q_NOTIFY_OFF 30
#define VCOM_Q_DESC 32
#define VCOM_Q_AVAIL 40
#define VCOM_Q_USED 48
#define VCOM_LEN 56

/* Device status (§2.1). */
#define VSTAT_ACK 1
#define VSTAT_DRIVER 2
#define VSTAT_DRIVER_OK 4
#define VSTAT_FEATURES_OK 8
#define VSTAT_FAILED 0x80

/* Feature bits (§6, §5.1.3). */
#define VIRTIO_NET_F_MAC 5
#define VIRTIO_NET_F_STATUS 16
#define VIRTIO_F_VERSION_1 32
#define VIRTIO_NET_S_LINK_UP 1

/* Split virtqueue (§2.4.5, §2.4.6, §2.4.8). */
#define VRING_DESC_F_NEXT 1
#define VRING_DESC_F_WRITE 2
#define VRING_USED_F_NO_NOTIFY 1	/* used ring flags: the device asks not to be notified */
#define VRING_AVAIL_F_NO_INTERRUPT 1	/* available ring flags: the driver asks for no interrupt */
#define VIRTIO_MSI_NO_VECTOR 0xFFFF	/* §4.1.5.1.2 */
#define VNET_WAKE_ENTRY 0		/* the MSI-X entry both queues use */

/* How the device ends the boot CPU's idle halt. */
enum vnet_wake {
	VNET_POLLED,	/* it cannot */
	VNET_MSIX,	/* both queues signal through MSI-X entry VNET_WAKE_ENTRY */
	VNET_INTX,	/* through its INTx line, intx */
};

struct vring_desc {
	u64 addr;
	u32 len;
	u16 flags;
	u16 next;
};

struct vring_used_elem {
	u32 id;
	u32 len;
};

#define VNET_QSIZE 128		/* a power of two, at most the device's maximum */
#define VNET_RXBUF 2048
#define VNET_HDR_LEN 12		/* struct virtio_net_hdr with num_buffers (VERSION_1, §5.1.6) */

struct vq {
	u16 index, size;
	volatile struct vring_desc *desc;
	volatile u16 *avail;	/* flags, idx, ring[size], used_event */
	volatile u16 *used;	/* flags, idx, then vring_used_elem[size] at +4 */
	volatile u16 *notify;
	struct netdev_dma ring;
	u16 avail_idx;		/* next slot of the available ring */
	u16 last_used;		/* next used entry to read */
	u16 free_head, num_free;
	void *cookie[VNET_QSIZE];
	bool outstanding[VNET_QSIZE];	/* a chain head the device has and has not given back */
};

struct vnet {
	struct netdev nd;
	struct pci_dev *pci;
	volatile u8 *common, *device;
	volatile u8 *notify_base;
	u32 notify_len;			/* the notify structure's length (inside its BAR) */
	u32 notify_mult;
	u64 features;
	struct vq rx, tx;
	struct netdev_dma rxbuf;	/* VNET_QSIZE buffers of VNET_RXBUF */
	struct netdev_dma txhdr;	/* VNET_QSIZE headers of VNET_HDR_LEN (all zero) */
	enum vnet_wake wake;
	const char *polled_why;		/* VNET_POLLED: why, for the boot line */
	struct arch_intx intx;		/* VNET_INTX: the line */
	volatile u8 *isr;		/* VNET_INTX: the ISR status byte (§4.1.4.5) */
	bool bad_reported;
	bool broken;			/* its used ring ran ahead of what it was given: no longer used */
};

static struct vnet vnets[NETDEV_MAX];
static unsigned int nr_vnets;

static inline void w8(volatile u8 *b, unsigned int off, u8 v)
{
	*(volatile u8 *)(b + off) = v;
}

static inline void w16(volatile u8 *b, unsigned int off, u16 v)
{
	*(volatile u16 *)(b + off) = v;
}

static inline void w32(volatile u8 *b, unsigned int off, u32 v)
{
	*(volatile u32 *)(b + off) = v;
}

static inline u8 r8(volatile u8 *b, unsigned int off)
{
	return *(volatile u8 *)(b + off);
}

static inline u16 r16(volatile u8 *b, unsigned int off)
{
	return *(volatile u16 *)(b + off);
}

static inline u32 r32(volatile u8 *b, unsigned int off)
{
	return *(volatile u32 *)(b + off);
}

/* A 64-bit field as two 32-bit writes, low first (§4.1.3.1 allows it). */
static inline void w64(volatile u8 *b, unsigned int off, u64 v)
{
	w32(b, off, (u32)v);
	w32(b, off + 4, (u32)(v >> 32));
}

/*
 * Find the structure of cfg_type through the vendor capabilities and map
 * it; need: the least length pmemk reads. NULL with a line if missing.
 * The structure lies inside its BAR (checked); *cap_out, *len_out: its
 * capability and length, when asked.
 */
static volatile u8 *find_cfg(struct vnet *v, u8 type, u32 need, u8 *cap_out, u32 *len_out)
{
	const struct pci_dev *d = v->pci;

	for (u8 c = pci_find_cap(d, PCI_CAP_ID_VNDR, 0); c; c = pci_find_cap(d, PCI_CAP_ID_VNDR, c)) {
		if (pci_read8(d, (u8)(c + VIRTIO_CAP_CFG_TYPE)) != type)
			continue;
		u8 bar = pci_read8(d, (u8)(c + VIRTIO_CAP_BAR));
		u32 off = pci_read32(d, (u8)(c + VIRTIO_CAP_OFFSET));
		u32 len = pci_read32(d, (u8)(c + VIRTIO_CAP_LENGTH));
		if (bar >= d->nr_bars || d->bar[bar].type < PCI_BAR_MEM32 || len < need ||
		    (u64)off + len > d->bar[bar].size)
			continue;	/* one we cannot use; the spec allows more of each type */
		volatile u8 *base = pci_map_bar(d, bar);
		if (!base)
			return NULL;
		if (cap_out)
			*cap_out = c;
		if (len_out)
			*len_out = len;
		return base + off;
	}
	pr_err("%s: no usable virtio capability of type %u (length >= %u in a memory BAR)\n",
	       v->nd.name, type, need);
	return NULL;
}

static int vq_setup(struct vnet *v, struct vq *q, u16 index)
{
	u64 used_off = ALIGN_UP(16ULL * VNET_QSIZE + 6 + 2ULL * VNET_QSIZE, PAGE_SIZE);

	w16(v->common, VCOM_Q_SELECT, index);
	u16 max = r16(v->common, VCOM_Q_SIZE);
	if (max < VNET_QSIZE) {
		pr_err("%s: queue %u holds %u descriptors, pmemk needs %u\n", v->nd.name, index,
		       max, VNET_QSIZE);
		return -ENODEV;
	}
	if (netdev_dma_alloc(&q->ring, used_off + 6 + 8ULL * VNET_QSIZE)) {
		pr_err("%s: no memory for queue %u\n", v->nd.name, index);
		return -ENOMEM;
	}
	u8 *va = q->ring.va;
	u64 pa = q->ring.pa;
	q->index = index;
	q->size = VNET_QSIZE;
	q->desc = (volatile struct vring_desc *)va;
	q->avail = (volatile u16 *)(va + 16 * VNET_QSIZE);
	q->used = (volatile u16 *)(va + used_off);
	for (u16 i = 0; i < VNET_QSIZE; i++)
		q->desc[i].next = (u16)(i + 1);
	q->avail[0] = VRING_AVAIL_F_NO_INTERRUPT;	/* polled; vnet_wake_arm asks for one */
	q->free_head = 0;
	q->num_free = VNET_QSIZE;
	w16(v->common, VCOM_Q_SIZE, VNET_QSIZE);
	w64(v->common, VCOM_Q_DESC, pa);
	w64(v->common, VCOM_Q_AVAIL, pa + 16 * VNET_QSIZE);
	w64(v->common, VCOM_Q_USED, pa + used_off);
	/* §4.1.4.4: the doorbell at queue_notify_off * multiplier, 2 bytes, inside the structure. */
	u64 noff = (u64)r16(v->common, VCOM_Q_NOTIFY_OFF) * v->notify_mult;
	if (noff + 2 > v->notify_len) {
		pr_err("%s: queue %u's doorbell at %#llx lies outside the notify structure (%u bytes): device refused\n",
		       v->nd.name, index, noff, v->notify_len);
		return -ENODEV;
	}
	q->notify = (volatile u16 *)(v->notify_base + noff);
	if (v->wake == VNET_MSIX) {
		w16(v->common, VCOM_Q_MSIX, VNET_WAKE_ENTRY);
		if (r16(v->common, VCOM_Q_MSIX) != VNET_WAKE_ENTRY) {	/* §4.1.5.1.2: refused */
			pr_warn("%s: queue %u takes no MSI-X vector: polled only\n", v->nd.name,
				index);
			v->wake = VNET_POLLED;
			v->polled_why = "a queue took no MSI-X vector";
		}
	}
	w16(v->common, VCOM_Q_ENABLE, 1);
	return 0;
}

/* Hand descriptor chain `head` to the device (§2.4.7.2). */
static void vq_publish(struct vq *q, u16 head)
{
	q->outstanding[head] = true;
	q->avail[2 + q->avail_idx % q->size] = head;
	arch_dma_wmb();		/* the ring entry before the index that exposes it */
	q->avail_idx++;
	q->avail[1] = q->avail_idx;
}

/*
 * Ring the doorbell unless the device said it needs none (§2.4.8 the used
 * ring's flags, §3.2.1.4; no EVENT_IDX). QEMU sets NO_NOTIFY while its
 * transmit handler is scheduled or running and reads the ring again before
 * it clears the flag, so a skipped doorbell loses nothing; and each one
 * rung is a trap that waits for QEMU's global lock, held by that handler.
 * The fence: the available index must be visible before the flag is read,
 * or the device could clear it, find nothing new and wait for a doorbell
 * that never comes.
 */
static void vq_notify(struct vq *q)
{
	arch_dma_mb();
	if (q->used[0] & VRING_USED_F_NO_NOTIFY)
		return;
	*q->notify = q->index;
}

static void rx_post_all(struct vnet *v)
{
	struct vq *q = &v->rx;

	for (u16 i = 0; i < q->size; i++) {
		q->desc[i].addr = v->rxbuf.pa + (u64)i * VNET_RXBUF;
		q->desc[i].len = VNET_RXBUF;
		q->desc[i].flags = VRING_DESC_F_WRITE;
		vq_publish(q, i);
	}
	q->num_free = 0;
}

static bool vnet_link_up(struct netdev *nd)
{
	struct vnet *v = nd->priv;

	if (!(v->features & (1ULL << VIRTIO_NET_F_STATUS)))
		return true;	/* no status field: always up (§5.1.4) */
	return r16(v->device, 6) & VIRTIO_NET_S_LINK_UP;
}

static void bad_device(struct vnet *v, const char *what, u32 val)
{
	if (!v->bad_reported)
		pr_err("%s: device returned %s %u, ignored (reported once)\n", v->nd.name, what, val);
	v->bad_reported = true;
}

/*
 * The device's used ring is not trusted (§2.4.8): an entry whose id is not
 * a chain head it was given and has not returned (out of range, a chain's
 * middle, a free descriptor, a second return) is ignored with one line
 * (bad_device), its chain untouched, so the free list and the owners'
 * cookies cannot be corrupted. A used index more than a ring ahead of the
 * last one read can only be a broken device: it is no longer used at all
 * (sends fail, nothing is received), with one line.
 */
static bool used_entry_ok(struct vnet *v, struct vq *q, u32 id, const char *what)
{
	if (id < q->size && q->outstanding[id]) {
		q->outstanding[id] = false;
		return true;
	}
	bad_device(v, what, id);
	return false;
}

static bool used_idx_ok(struct vnet *v, const struct vq *q, u16 used_idx)
{
	if ((u16)(used_idx - q->last_used) <= q->size)
		return true;
	pr_err("%s: device's queue %u used index %u runs past the %u entries given: device no longer used\n",
	       v->nd.name, q->index, used_idx, q->size);
	v->broken = true;
	return false;
}

static int vnet_xmit(struct netdev *nd, const struct netdev_frag *frags, unsigned int nr,
		     void *cookie)
{
	struct vnet *v = nd->priv;
	struct vq *q = &v->tx;
	u64 total = 0;

	if (!nr || nr > NETDEV_MAX_FRAGS)
		return -EINVAL;
	if (v->broken)
		return -EIO;
	for (unsigned int i = 0; i < nr; i++)
		total += frags[i].len;
	if (total > ETH_FRAME_MAX || total < 14)
		return -EINVAL;
	if (q->num_free < nr + 1) {
		nd->stats.tx_busy++;
		return -EAGAIN;
	}
	u16 head = q->free_head, d = head;
	q->desc[d].addr = v->txhdr.pa + (u64)head * VNET_HDR_LEN;
	q->desc[d].len = VNET_HDR_LEN;
	for (unsigned int i = 0; i < nr; i++) {
		q->desc[d].flags = VRING_DESC_F_NEXT;
		d = q->desc[d].next;
		q->desc[d].addr = frags[i].pa;
		q->desc[d].len = frags[i].len;
	}
	q->desc[d].flags = 0;
	q->free_head = q->desc[d].next;
	q->num_free = (u16)(q->num_free - (nr + 1));
	q->cookie[head] = cookie;
	vq_publish(q, head);
	vq_notify(q);
	nd->stats.tx_frames++;
	nd->stats.tx_bytes += total;
	return 0;
}

/* Give finished chains back to the free list and tell their owners. */
/* Finished sends back to the stack; how many. */
static unsigned int tx_reap(struct vnet *v)
{
	struct vq *q = &v->tx;
	u16 used_idx = q->used[1];
	unsigned int reaped = 0;

	arch_dma_rmb();		/* the used index before the entries it covers */
	if (!used_idx_ok(v, q, used_idx))
		return 0;
	while (q->last_used != used_idx) {
		volatile struct vring_used_elem *e =
			(volatile struct vring_used_elem *)(q->used + 2) + q->last_used % q->size;
		u32 id = e->id;
		q->last_used++;
		if (!used_entry_ok(v, q, id, "transmit id"))
			continue;
		u16 d = (u16)id, n = 1;
		while ((q->desc[d].flags & VRING_DESC_F_NEXT) && n < q->size) {
			d = q->desc[d].next;
			n++;
		}
		q->desc[d].next = q->free_head;
		q->free_head = (u16)id;
		q->num_free = (u16)(q->num_free + n);
		void *cookie = q->cookie[id];
		q->cookie[id] = NULL;
		if (v->nd.tx_done)
			v->nd.tx_done(&v->nd, cookie);
		reaped++;
	}
	return reaped;
}

static unsigned int vnet_poll(struct netdev *nd, unsigned int budget)
{
	struct vnet *v = nd->priv;
	struct vq *q = &v->rx;

	if (v->broken)
		return 0;
	unsigned int done = 0, reaped = tx_reap(v);
	u16 used_idx = q->used[1];
	arch_dma_rmb();
	if (!used_idx_ok(v, q, used_idx))
		return reaped;
	while (q->last_used != used_idx && done < budget) {
		volatile struct vring_used_elem *e =
			(volatile struct vring_used_elem *)(q->used + 2) + q->last_used % q->size;
		u32 id = e->id, len = e->len;
		q->last_used++;
		if (!used_entry_ok(v, q, id, "receive id"))
			continue;	/* not a buffer it had: nothing to give back */
		if (len < VNET_HDR_LEN + 14 || len > VNET_RXBUF) {
			nd->stats.rx_dropped++;
		} else {
			nd->stats.rx_frames++;
			nd->stats.rx_bytes += len - VNET_HDR_LEN;
			if (nd->rx)
				nd->rx(nd, (u8 *)v->rxbuf.va + (u64)id * VNET_RXBUF + VNET_HDR_LEN,
				       len - VNET_HDR_LEN);
		}
		vq_publish(q, (u16)id);	/* the descriptor still names its buffer */
		done++;
	}
	if (done)
		vq_notify(q);
	return done + reaped;
}

/*
 * Interrupts on for both queues (§2.4.7: the available ring's flags), then
 * a look at the used indices: the fence makes the flags visible first, or
 * a buffer the device used in between would bring neither an interrupt
 * nor a look. The INTx line is level-triggered: the ISR read takes away
 * what asserted it while polled, before the flags let it rise again.
 */
static bool vnet_wake_arm(struct netdev *nd)
{
	struct vnet *v = nd->priv;

	if (v->broken)
		return true;	/* nothing more to wait for from it: the halt's timer suffices */
	if (v->wake == VNET_POLLED)
		return false;
	if (v->wake == VNET_INTX)
		(void)r8(v->isr, 0);
	v->rx.avail[0] = 0;
	v->tx.avail[0] = 0;
	arch_dma_mb();
	if (v->wake == VNET_INTX)
		arch_intx_mask(v->intx.gsi, false);
	return v->rx.used[1] == v->rx.last_used && v->tx.used[1] == v->tx.last_used;
}

/* Interrupts off; for INTx the ISR read drops the line, then it is masked. */
static void vnet_wake_disarm(struct netdev *nd)
{
	struct vnet *v = nd->priv;

	v->rx.avail[0] = VRING_AVAIL_F_NO_INTERRUPT;
	v->tx.avail[0] = VRING_AVAIL_F_NO_INTERRUPT;
	if (v->wake == VNET_INTX) {
		(void)r8(v->isr, 0);
		arch_intx_mask(v->intx.gsi, true);
	}
}

static const struct netdev_ops vnet_ops = {
	.xmit = vnet_xmit,
	.poll = vnet_poll,
	.link_up = vnet_link_up,
	.wake_arm = vnet_wake_arm,
	.wake_disarm = vnet_wake_disarm,
};

static bool vnet_match(const struct pci_dev *d)
{
	if (d->vendor != VIRTIO_VENDOR)
		return false;
	return d->device == VIRTIO_NET_MODERN ||
	       (d->device == VIRTIO_NET_TRANSITIONAL && d->subsys_id == 1);
}

/*
 * Give up on the device: reset it so that it forgets the rings, free them,
 * and mark it FAILED (§2.1.1).
 */
static int vnet_fail(struct vnet *v, const char *why, int rc)
{
	if (v->common) {
		w8(v->common, VCOM_STATUS, 0);
		for (unsigned int i = 0; r8(v->common, VCOM_STATUS) && i < 1000000; i++)
			;
	}
	netdev_dma_free(&v->rx.ring);
	netdev_dma_free(&v->tx.ring);
	netdev_dma_free(&v->rxbuf);
	netdev_dma_free(&v->txhdr);
	if (v->common)
		w8(v->common, VCOM_STATUS, VSTAT_FAILED);
	pr_err("%s: %s\n", v->nd.name, why);
	return rc;
}

/* Reset, then ACK and DRIVER (§3.1.1 steps 1-3). */
static int vnet_reset(struct vnet *v)
{
	w8(v->common, VCOM_STATUS, 0);
	for (unsigned int i = 0; r8(v->common, VCOM_STATUS); i++)
		if (i > 1000000)
			return vnet_fail(v, "device does not reset", -EIO);
	w8(v->common, VCOM_STATUS, VSTAT_ACK);
	w8(v->common, VCOM_STATUS, VSTAT_ACK | VSTAT_DRIVER);
	return 0;
}

/* Features (§3.1.1 steps 4-6): VERSION_1 required, MAC and STATUS taken when offered. */
static int vnet_features(struct vnet *v)
{
	u64 dev;

	w32(v->common, VCOM_DFSELECT, 0);
	dev = r32(v->common, VCOM_DF);
	w32(v->common, VCOM_DFSELECT, 1);
	dev |= (u64)r32(v->common, VCOM_DF) << 32;
	if (!(dev & (1ULL << VIRTIO_F_VERSION_1)))
		return vnet_fail(v, "device does not offer VIRTIO_F_VERSION_1 (legacy only)", -ENODEV);
	v->features = dev & ((1ULL << VIRTIO_F_VERSION_1) | (1ULL << VIRTIO_NET_F_MAC) |
			     (1ULL << VIRTIO_NET_F_STATUS));
	w32(v->common, VCOM_GFSELECT, 0);
	w32(v->common, VCOM_GF, (u32)v->features);
	w32(v->common, VCOM_GFSELECT, 1);
	w32(v->common, VCOM_GF, (u32)(v->features >> 32));
	w8(v->common, VCOM_STATUS, VSTAT_ACK | VSTAT_DRIVER | VSTAT_FEATURES_OK);
	if (!(r8(v->common, VCOM_STATUS) & VSTAT_FEATURES_OK))
		return vnet_fail(v, "device refused the features", -ENODEV);
	return 0;
}

static int vnet_map(struct vnet *v)
{
	u8 ncap = 0;

	v->common = find_cfg(v, VIRTIO_PCI_CAP_COMMON_CFG, VCOM_LEN, NULL, NULL);
	v->notify_base = find_cfg(v, VIRTIO_PCI_CAP_NOTIFY_CFG, 2, &ncap, &v->notify_len);
	v->device = find_cfg(v, VIRTIO_PCI_CAP_DEVICE_CFG, 8, NULL, NULL);
	if (!v->common || !v->notify_base || !v->device)
		return -ENODEV;
	v->notify_mult = pci_read32(v->pci, (u8)(ncap + VIRTIO_CAP_NOTIFY_MULT));
	return 0;
}

/*
 * MSI-X entry VNET_WAKE_ENTRY sends the message that ends the boot CPU's
 * idle halt (§4.1.4.3 vectors; configuration changes get none: the link
 * is polled). Without MSI-X (QEMU's vectors=0), the INTx line: virtio's
 * ISR status register then says why it is asserted (§4.1.4.5), and the
 * queues keep VIRTIO_MSI_NO_VECTOR. Sets v->wake, and v->polled_why when
 * it is VNET_POLLED.
 */
static void vnet_wake_setup(struct vnet *v)
{
	u64 addr;
	u32 data;

	if (v->pci->msix_vectors) {
		if (!arch_wake_msi(&addr, &data)) {
			v->polled_why = "the boot CPU does not halt";
		} else if (pci_msix_enable(v->pci, VNET_WAKE_ENTRY, addr, data)) {
			v->polled_why = "MSI-X not usable";
		} else {
			w16(v->common, VCOM_MSIX_CONFIG, VIRTIO_MSI_NO_VECTOR);
			v->wake = VNET_MSIX;
		}
		return;
	}
	v->isr = find_cfg(v, VIRTIO_PCI_CAP_ISR_CFG, 1, NULL, NULL);
	int rc = v->isr ? pci_intx_wake(v->pci, &v->intx) : -ENODEV;
	if (!v->isr)
		v->polled_why = "no ISR status";
	else if (rc)
		v->polled_why = pci_intx_why(rc);
	else
		v->wake = VNET_INTX;
}

/* The boot line's part on the wake-up: "MSI-X wake-up", "INTx wake-up (GSI n)", "polled (why)". */
static const char *vnet_wake_str(const struct vnet *v, char *buf, size_t len)
{
	if (v->wake == VNET_MSIX)
		snprintf(buf, len, "MSI-X wake-up");
	else if (v->wake == VNET_INTX)
		snprintf(buf, len, "INTx wake-up (GSI %u)", v->intx.gsi);
	else
		snprintf(buf, len, "polled (%s)", v->polled_why);
	return buf;
}

static int vnet_probe(struct pci_dev *d)
{
	if (nr_vnets == NETDEV_MAX)
		return -ENOSPC;
	struct vnet *v = &vnets[nr_vnets];
	int rc;

	memset(v, 0, sizeof(*v));
	v->pci = d;
	pci_name(d, v->nd.name);	/* until netdev_register names it */
	v->nd.driver = "virtio-net";
	v->nd.ops = &vnet_ops;
	v->nd.priv = v;
	v->nd.mtu = 1500;
	pci_enable(d, false, true);
	if ((rc = vnet_map(v)) || (rc = vnet_reset(v)) || (rc = vnet_features(v)))
		return rc;
	if (r16(v->common, VCOM_NUM_QUEUES) < 2)
		return vnet_fail(v, "fewer than 2 queues", -ENODEV);
	vnet_wake_setup(v);
	if ((rc = vq_setup(v, &v->rx, 0)) || (rc = vq_setup(v, &v->tx, 1)))
		return vnet_fail(v, "queue setup failed", rc);
	if (netdev_dma_alloc(&v->rxbuf, (u64)VNET_QSIZE * VNET_RXBUF) ||
	    netdev_dma_alloc(&v->txhdr, (u64)VNET_QSIZE * VNET_HDR_LEN))
		return vnet_fail(v, "no memory for buffers", -ENOMEM);
	rx_post_all(v);
	if (v->features & (1ULL << VIRTIO_NET_F_MAC))
		for (unsigned int i = 0; i < ETH_ALEN; i++)
			v->nd.mac[i] = r8(v->device, i);
	else
		memcpy(v->nd.mac, (u8[]){ 0x52, 0x54, 0x00, 0x00, 0x00, (u8)(0x10 + nr_vnets) },
		       ETH_ALEN);
	w8(v->common, VCOM_STATUS, VSTAT_ACK | VSTAT_DRIVER | VSTAT_FEATURES_OK | VSTAT_DRIVER_OK);
	vq_notify(&v->rx);
	if ((rc = netdev_register(&v->nd)))
		return vnet_fail(v, "not registered", rc);
	nr_vnets++;
	char mac[18], name[8], how[80];
	pr_info("%s: virtio-net at %s, MAC %s, %u-entry queues, %s, link %s\n", v->nd.name,
		pci_name(d, name), netdev_mac_str(v->nd.mac, mac), VNET_QSIZE,
		vnet_wake_str(v, how, sizeof(how)), vnet_link_up(&v->nd) ? "up" : "down");
	return 0;
}

static const struct pci_driver vnet_driver = {
	.name = "virtio-net",
	.match = vnet_match,
	.probe = vnet_probe,
};
PCI_DRIVER(vnet_driver);
