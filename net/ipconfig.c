/*
 * The ip= kernel parameter (Linux's syntax, Documentation/admin-guide/
 * nfs/nfsroot.rst): pure parsing into struct ipconfig, host-tested; net.c
 * applies the result.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net.h"

bool ipv4_parse(const char *s, u32 *addr)
{
	u32 a = 0;

	for (int part = 0; part < 4; part++) {
		unsigned int v = 0, digits = 0;
		while (*s >= '0' && *s <= '9' && digits < 4) {
			v = v * 10 + (unsigned int)(*s++ - '0');
			digits++;
		}
		if (!digits || digits > 3 || v > 255)
			return false;
		a = a << 8 | v;
		if (part < 3 && *s++ != '.')
			return false;
	}
	if (*s)
		return false;
	*addr = a;
	return true;
}

/* The classful netmask Linux falls back to when none is given. */
static u32 class_mask(u32 addr)
{
	if (addr >> 31 == 0)
		return 0xFF000000;	/* A */
	if (addr >> 30 == 2)
		return 0xFFFF0000;	/* B */
	return 0xFFFFFF00;		/* C and the rest */
}

static bool mask_valid(u32 m)
{
	return m && ((~m + 1) & ~m) == 0;	/* ones, then zeroes */
}

/* Copy field i (':'-separated) of val into buf; false if it does not fit. */
static bool field(const char *val, unsigned int i, char *buf, size_t size)
{
	const char *p = val;

	for (unsigned int k = 0; k < i; k++) {
		p = strchr(p, ':');
		if (!p) {
			buf[0] = '\0';
			return true;
		}
		p++;
	}
	size_t n = strcspn(p, ":");
	if (n >= size)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

static int addr_field(const char *val, unsigned int i, const char *name, u32 *out, char *err,
		      size_t errlen)
{
	char buf[32];

	*out = 0;
	if (!field(val, i, buf, sizeof(buf)) || (buf[0] && !ipv4_parse(buf, out))) {
		snprintf(err, errlen, "ip=%s: %s is not an IPv4 address", val, name);
		return -EINVAL;
	}
	return 0;
}

int ipconfig_parse(const char *val, struct ipconfig *cfg, char *err, size_t errlen)
{
	char buf[64];
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (!val || !*val || !strcmp(val, "dhcp") || !strcmp(val, "on") || !strcmp(val, "any") ||
	    !strcmp(val, "both")) {
		cfg->mode = IPCONFIG_DHCP;
		return 0;
	}
	if (!strcmp(val, "off") || !strcmp(val, "none")) {
		cfg->mode = IPCONFIG_OFF;
		return 0;
	}
	if ((rc = addr_field(val, 0, "client-ip", &cfg->addr, err, errlen)) ||
	    (rc = addr_field(val, 1, "server-ip", &cfg->server, err, errlen)) ||
	    (rc = addr_field(val, 2, "gw-ip", &cfg->gw, err, errlen)) ||
	    (rc = addr_field(val, 3, "netmask", &cfg->mask, err, errlen)))
		return rc;
	if (!field(val, 4, cfg->hostname, sizeof(cfg->hostname)) ||
	    !field(val, 5, cfg->device, sizeof(cfg->device)) || !field(val, 6, buf, sizeof(buf))) {
		snprintf(err, errlen, "ip=%s: hostname, device or autoconf too long", val);
		return -EINVAL;
	}
	if (!strcmp(buf, "off") || !strcmp(buf, "none") || !strcmp(buf, "static") ||
	    (!buf[0] && cfg->addr)) {
		cfg->mode = IPCONFIG_STATIC;
	} else if (!buf[0] || !strcmp(buf, "dhcp") || !strcmp(buf, "on") || !strcmp(buf, "any") ||
		   !strcmp(buf, "both")) {
		cfg->mode = IPCONFIG_DHCP;
		return 0;
	} else {
		snprintf(err, errlen, "ip=%s: autoconf '%s' is not off, none, static or dhcp", val,
			 buf);
		return -EINVAL;
	}
	if (!cfg->addr) {
		snprintf(err, errlen, "ip=%s: a static configuration needs client-ip", val);
		return -EINVAL;
	}
	if (!cfg->mask)
		cfg->mask = class_mask(cfg->addr);
	if (!mask_valid(cfg->mask)) {
		snprintf(err, errlen, "ip=%s: netmask is not a run of ones then zeroes", val);
		return -EINVAL;
	}
	if (cfg->gw && (cfg->gw & cfg->mask) != (cfg->addr & cfg->mask)) {
		snprintf(err, errlen, "ip=%s: gateway is not on the client's network", val);
		return -EINVAL;
	}
	return 0;
}

/*
 * A list of IPv4 prefixes, "A.B.C.D[/LEN],..." (nbd.allow=): LEN 0-32,
 * default 32; host bits set under the mask are an error (10.0.2.2/24 is
 * almost surely a typo for 10.0.2.0/24).
 */
int cidr_list_parse(const char *s, struct net_cidr *out, unsigned int max, unsigned int *n,
		    char *err, size_t errlen)
{
	unsigned int k = 0;

	if (!s || !*s) {
		snprintf(err, errlen, "empty list: want A.B.C.D[/LEN],...");
		return -EINVAL;
	}
	while (*s) {
		char item[24], *slash;
		size_t len = strcspn(s, ",");
		if (!len || len >= sizeof(item)) {
			snprintf(err, errlen, "entry %u: %s", k + 1, len ? "too long" : "empty");
			return -EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		unsigned int bits = 32;
		slash = strchr(item, '/');
		if (slash) {
			const char *d = slash + 1;
			*slash = '\0';
			bits = 0;
			if (!*d || strlen(d) > 2)
				bits = 99;
			for (; *d && bits <= 32; d++)
				bits = *d >= '0' && *d <= '9' ? bits * 10 + (unsigned int)(*d - '0') : 99;
			if (bits > 32) {
				snprintf(err, errlen, "%s: the prefix length is not 0-32", item);
				return -EINVAL;
			}
		}
		u32 a;
		if (!ipv4_parse(item, &a)) {
			snprintf(err, errlen, "%s is not an IPv4 address", item);
			return -EINVAL;
		}
		u32 mask = bits ? ~0u << (32 - bits) : 0;
		if (a & ~mask) {
			snprintf(err, errlen, "%s/%u has bits set past the prefix", item, bits);
			return -EINVAL;
		}
		if (k == max) {
			snprintf(err, errlen, "more than %u entries", max);
			return -EINVAL;
		}
		out[k++] = (struct net_cidr){ a, mask };
		s += len;
		if (*s == ',' && !*++s) {
			snprintf(err, errlen, "entry %u: empty", k + 1);
			return -EINVAL;
		}
	}
	*n = k;
	return 0;
}

bool cidr_list_match(const struct net_cidr *list, unsigned int n, u32 addr)
{
	for (unsigned int i = 0; i < n; i++)
		if ((addr & list[i].mask) == list[i].addr)
			return true;
	return false;
}

int cidr_format(const struct net_cidr *c, char *buf, size_t len)
{
	unsigned int bits = c->mask ? 32 - (unsigned int)__builtin_ctz(c->mask) : 0;

	return snprintf(buf, len, "%u.%u.%u.%u/%u", c->addr >> 24, c->addr >> 16 & 0xFF,
			c->addr >> 8 & 0xFF, c->addr & 0xFF, bits);
}
