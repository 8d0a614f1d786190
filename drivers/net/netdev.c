/* The registry of NICs behind the netdev interface (include/netdev.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "netdev.h"
#include "page_alloc.h"
#include "printk.h"

static struct netdev *netdevs[NETDEV_MAX];
static unsigned int nr_netdevs;

int netdev_register(struct netdev *nd)
{
	if (nr_netdevs == NETDEV_MAX) {
		pr_err("netdev: more than %d NICs, %s not registered\n", NETDEV_MAX, nd->driver);
		return -ENOSPC;
	}
	snprintf(nd->name, sizeof(nd->name), "eth%u", nr_netdevs);
	netdevs[nr_netdevs++] = nd;
	return 0;
}

unsigned int netdev_count(void)
{
	return nr_netdevs;
}

struct netdev *netdev_get(unsigned int i)
{
	return i < nr_netdevs ? netdevs[i] : NULL;
}

struct netdev *netdev_by_name(const char *name)
{
	for (unsigned int i = 0; i < nr_netdevs; i++)
		if (!strcmp(netdevs[i]->name, name))
			return netdevs[i];
	return NULL;
}

unsigned int netdev_poll_all(unsigned int budget)
{
	unsigned int work = 0;

	for (unsigned int i = 0; i < nr_netdevs; i++)
		work += netdevs[i]->ops->poll(netdevs[i], budget);
	return work;
}

bool netdev_wake_arm_all(void)
{
	for (unsigned int i = 0; i < nr_netdevs; i++)
		if (!netdevs[i]->ops->wake_arm || !netdevs[i]->ops->wake_arm(netdevs[i]))
			return false;
	return true;
}

void netdev_wake_disarm_all(void)
{
	for (unsigned int i = 0; i < nr_netdevs; i++)
		if (netdevs[i]->ops->wake_disarm)
			netdevs[i]->ops->wake_disarm(netdevs[i]);
}

void netdev_flush_all(void)
{
	for (unsigned int i = 0; i < nr_netdevs; i++)
		if (netdevs[i]->ops->flush)
			netdevs[i]->ops->flush(netdevs[i]);
}

const char *netdev_mac_str(const u8 *mac, char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
	return buf;
}

int netdev_dma_alloc(struct netdev_dma *d, u64 bytes)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	d->pa = order <= MAX_ORDER ? page_alloc_zeroed(order) : 0;
	d->va = d->pa ? phys_to_virt(d->pa) : NULL;
	d->order = order;
	return d->pa ? 0 : -ENOMEM;
}

void netdev_dma_free(struct netdev_dma *d)
{
	if (d->pa)
		page_free(d->pa, d->order);
	*d = (struct netdev_dma){ 0 };
}
