/*
 * An NBD export's spec (nbd.export=, nbd-export): DEV[:ro][@ID[+ID...]],
 * e.g. pmem1@alice+bob or pmem2:ro@carol, parsed and checked whole before
 * anything is exported; and the identity list it gives, which decides who
 * may open the export (the engine's may_open, include/nbd.h). Portable:
 * host-tested (test_nbd_export_spec).
 *
 * An identity is what the client's TLS PSK names (FACTS-3 §1.2: the
 * `identity:hexkey` lines of psktool's file): 1 to NBD_IDENTITY_MAX of
 * [A-Za-z0-9._-], up to NBD_EXPORT_IDS per export. An export with a list
 * is open only to a TLS client whose identity is on it; without one, to
 * any client that got through (whether TLS is needed is decided for the
 * whole server, not here).
 */
#include <errno.h>
#include <string.h>

#include "nbd_priv.h"

static bool id_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '.' || ch == '_' || ch == '-';
}

/* The identities after the '@' ("alice+bob") into l: 0, or -EINVAL and *why. */
static int parse_ids(const char *s, struct nbd_id_list *l, const char **why)
{
	l->n = 0;
	for (;;) {
		size_t n = 0;
		while (id_char(s[n]))
			n++;
		if (s[n] && s[n] != '+') {
			*why = "an identity may hold only letters, digits, '.', '_' and '-'";
			return -EINVAL;
		}
		if (!n) {
			*why = "an empty identity";
			return -EINVAL;
		}
		if (n > NBD_IDENTITY_MAX) {
			*why = "an identity longer than 63 characters";
			return -EINVAL;
		}
		if (l->n == NBD_EXPORT_IDS) {
			*why = "more than 8 identities";
			return -EINVAL;
		}
		memcpy(l->id[l->n], s, n);
		l->id[l->n++][n] = '\0';
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* The spec into *spec, which may be left half-filled on failure. */
static int parse(const char *s, struct nbd_export_spec *spec, const char **why)
{
	size_t n = strcspn(s, ":@");
	const char *rest = s + n;

	if (!n || n >= sizeof(spec->dev)) {
		*why = "not a device name";
		return -EINVAL;
	}
	memcpy(spec->dev, s, n);
	spec->dev[n] = '\0';
	if (*rest == ':') {
		if (strncmp(rest, ":ro", 3) || (rest[3] && rest[3] != '@')) {
			*why = "only :ro may follow the device name";
			return -EINVAL;
		}
		spec->ro = true;
		rest += 3;
	}
	if (*rest == '@')
		return parse_ids(rest + 1, &spec->ids, why);
	return 0;
}

int nbd_export_spec_parse(const char *s, struct nbd_export_spec *spec, const char **why)
{
	memset(spec, 0, sizeof(*spec));
	int err = parse(s, spec, why);
	if (err)
		memset(spec, 0, sizeof(*spec));
	return err;
}

bool nbd_id_list_allows(const struct nbd_id_list *l, const char *identity)
{
	if (!l->n)
		return true;
	if (!identity)
		return false;
	for (unsigned int i = 0; i < l->n; i++)
		if (!strcmp(l->id[i], identity))
			return true;
	return false;
}

void nbd_id_list_format(const struct nbd_id_list *l, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int i = 0; i < l->n && len; i++) {
		size_t n = strlen(l->id[i]);
		if (at + (i ? 1 : 0) + n >= len)
			return;
		if (i)
			buf[at++] = ' ';
		memcpy(buf + at, l->id[i], n + 1);
		at += n;
	}
}
