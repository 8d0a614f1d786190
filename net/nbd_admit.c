/*
 * Who may connect to the NBD server and how many (issue 30): the nbd.*
 * parameters of admission and time limits (nbd_server.c applies them),
 * nbd.allow='s list, the rule that nbd.* fails closed, and the budget of
 * lines about single connections, so that a flood of connections cannot
 * flood the console.
 */
#include <errno.h>

#include <lwip/sys.h>

#include "line_budget.h"
#include "nbd_priv.h"
#include "net.h"
#include "params.h"
#include "printk.h"

u64 nbd_handshake_secs = 10, nbd_idle_secs, nbd_max_clients = NBD_MAX_CLIENTS,
    nbd_max_per_source = 16;
KERNEL_PARAM_U64("nbd.handshake-timeout", nbd_handshake_secs, 1, 3600,
		 "seconds a connection may take to choose an export before it is dropped (default 10)");
KERNEL_PARAM_U64("nbd.timeout", nbd_idle_secs, 0, 7 * 86400,
		 "seconds a client may send no request and be sent nothing before it is closed (default 0: never)");
KERNEL_PARAM_U64("nbd.max-clients", nbd_max_clients, 1, NBD_MAX_CLIENTS,
		 "NBD connections at once (default 32)");
KERNEL_PARAM_U64("nbd.max-per-source", nbd_max_per_source, 1, NBD_MAX_CLIENTS,
		 "NBD connections at once from one address (default 16)");

/* nbd.* fails closed: the first unknown or refused one, if any (lib/params.c sets it). */
const char *nbd_bad_param;
KERNEL_PARAM_FAMILY("nbd.", nbd_bad_param);

bool nbd_params_ok(void)
{
	return !nbd_bad_param;
}

/* nbd.allow=: who may connect (host order); no list: anyone. */
#define NBD_MAX_ALLOW 16
static struct net_cidr allow[NBD_MAX_ALLOW];
static unsigned int nr_allow;
static bool allow_set;

static int nbd_allow_param(const char *val)
{
	char err[96];

	if (cidr_list_parse(val, allow, NBD_MAX_ALLOW, &nr_allow, err, sizeof(err))) {
		/* Refuse everyone rather than serve a network the admin meant to keep out. */
		pr_err("nbd.allow=%s: %s; no client will be accepted\n", val ? val : "", err);
		nr_allow = 0;
		allow_set = true;
		return -EINVAL;
	}
	allow_set = true;
	return 0;
}
KERNEL_PARAM("nbd.allow", nbd_allow_param,
	     "who may connect to the NBD server: A.B.C.D[/LEN],... (default: anyone)");

bool nbd_allow_list_set(void)
{
	return allow_set;
}

bool nbd_allowed(u32 addr)
{
	return !allow_set || cidr_list_match(allow, nr_allow, addr);
}

bool nbd_line_ok(void)
{
	static struct line_budget budget = LINE_BUDGET_INIT("nbd", 20, 10000);

	return line_budget_ok(&budget, sys_now());
}

void nbd_admit_list(u64 refused)
{
	if (!allow_set) {
		kprintf("allowed: anyone (no nbd.allow=)\n");
	} else {
		kprintf("allowed:");
		for (unsigned int i = 0; i < nr_allow; i++) {
			char c[20];
			cidr_format(&allow[i], c, sizeof(c));
			kprintf(" %s", c);
		}
		kprintf("%s; %llu connection%s refused\n",
			nr_allow ? "" : " nobody (nbd.allow= was invalid)", refused,
			refused == 1 ? "" : "s");
	}
	kprintf("limits: %llu clients, %llu per address; handshake %llu s, idle %llu s%s\n",
		nbd_max_clients, nbd_max_per_source, nbd_handshake_secs, nbd_idle_secs,
		nbd_idle_secs ? "" : " (off)");
}
