/*
 * The network stack's face to the rest of the kernel (net/): bring every
 * registered netdev up under lwIP, configure addresses from `ip=` or DHCP,
 * and poll. lwIP's own types stay inside net/.
 */
#ifndef PMEMK_NET_H
#define PMEMK_NET_H

#include "types.h"

/* Linux's ip= (Documentation/admin-guide/nfs/nfsroot.rst), as far as pmemk uses it. */
enum ipconfig_mode {
	IPCONFIG_DHCP,		/* the default, and ip=dhcp|on|any|both */
	IPCONFIG_STATIC,	/* ip=ADDR:...:off (or none, static) */
	IPCONFIG_OFF,		/* ip=off|none: no address at all */
};

struct ipconfig {
	enum ipconfig_mode mode;
	u32 addr, server, gw, mask;	/* host order: 10.0.2.15 is 0x0a00020f */
	char hostname[64];
	char device[16];		/* empty: the first NIC */
};

/*
 * Parse an ip= value: "dhcp", "off", or
 * client-ip:server-ip:gw-ip:netmask:hostname:device:autoconf (fields may be
 * empty; the netmask defaults to the address's class, autoconf "off",
 * "none" or "static" means static, "dhcp", "on", "any", "both" or empty
 * with no client address means DHCP). Returns 0, or -EINVAL with one line
 * in err saying which field is bad.
 */
int ipconfig_parse(const char *val, struct ipconfig *cfg, char *err, size_t errlen);

/* "a.b.c.d" into a host-order address; false if it is not one. */
bool ipv4_parse(const char *s, u32 *addr);

/* An IPv4 prefix, host order: addr has no bits outside mask. */
struct net_cidr {
	u32 addr, mask;
};

/*
 * Parse "A.B.C.D[/LEN],..." (LEN 0-32, default 32) into out (at most max
 * entries), *n set. Returns 0, or -EINVAL with one line in err: an empty
 * list or entry, a bad address or length, host bits set past the prefix,
 * too many entries.
 */
int cidr_list_parse(const char *s, struct net_cidr *out, unsigned int max, unsigned int *n,
		    char *err, size_t errlen);
/* True if addr (host order) is inside one of the n prefixes. */
bool cidr_list_match(const struct net_cidr *list, unsigned int n, u32 addr);
/* "A.B.C.D/LEN" into buf; snprintf's result. */
int cidr_format(const struct net_cidr *c, char *buf, size_t len);

/* Bring the NICs up (after pci_probe_drivers), configure and wait briefly for DHCP. */
void net_init(void);
/* Apply nbd.export= (net_init calls it once the stack is up). */
void nbd_boot(void);
/* Serve the HTTPS API (net/api_server.c) if api_files_load allowed it; a line either way. */
void api_boot(void);

/* How many network interfaces are up under lwIP (0: none, no NIC or no driver). */
unsigned int net_if_count(void);

/* Poll the NICs and run the stack's timers once (the shell's idle work); true if there was work. */
bool net_poll(void);

/*
 * Work for the end of each poll pass, after its frames (and so its ACKs)
 * were taken in: a NET_POLL_PASS function sends what those ACKs freed,
 * once, in large writes rather than a segment or two per ACK (the NBD
 * server; the benchmark's raw TCP source). It returns true if it did any
 * work. On e1000 this raised NBD READ from 0.84-0.89 of raw TCP to
 * 1.11-1.14 (PERFORMANCE "Sending once per poll pass").
 */
struct net_poll_pass {
	bool (*fn)(void);
};
#define NET_POLL_PASS(_fn) REGISTER(net_poll_pass, struct net_poll_pass, _fn, _fn)
REGISTRY(net_poll_pass, struct net_poll_pass);

#endif
