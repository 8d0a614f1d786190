/* The NBD server's shell commands: nbd-export, nbd-unexport, nbd-list [-j], nbd-disconnect (boot CPU only). */
#include <errno.h>

#include "nbd_priv.h"
#include "nd_json.h"
#include "net_priv.h"
#include "printk.h"
#include "shell.h"

static int cmd_nbd_export(int argc, char **argv)
{
	const char *spec = shell_only_name(argc, argv, "device");

	if (!net_on_its_cpu(argv[0]))
		return -EPERM;
	return spec ? nbd_export_add(spec) : -EINVAL;
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-export", cmd_nbd_export, "nbd-export DEV[:ro][@ID[+ID...]]",
		  "serve a block device over NBD (port 10809), only to these TLS identities if @ is given");

static int cmd_nbd_unexport(int argc, char **argv)
{
	const char *dev = shell_only_name(argc, argv, "device");

	if (!net_on_its_cpu(argv[0]))
		return -EPERM;
	return dev ? nbd_export_remove(dev) : -EINVAL;
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-unexport", cmd_nbd_unexport, "nbd-unexport DEV",
		  "stop serving it (refused while clients are connected to it: nbd-disconnect)");

/*
 * nbd-list -j, on one line (key order as here; "identities" only on an
 * export some TLS identities alone may open, "export" once the client
 * chose one, "tls" and "identity" once it speaks TLS):
 *   {"exports":[{"export","device","mode","size","readonly","zero_copy",
 *     "identities":[...],"clients"}],
 *    "clients":[{"id","remote","export","state","tls","identity","reads",
 *     "read_bytes","zero_copy_bytes","writes","write_bytes","flushes","fua",
 *     "write_zeroes","errors","connected_ms"}],
 *    "closed":{"reads","read_bytes","zero_copy_bytes","writes","write_bytes"},
 *    "refused"}
 * The same figures as the text (and `metrics`): each from one place.
 */
static void nbd_list_json(void)
{
	struct nd_json j = { .first = true, .compact = true };

	nd_json_open(&j, NULL, '{');
	nbd_exports_json(&j);
	nbd_connections_json(&j);
	nd_json_close(&j, '}');
}

static int cmd_nbd_list(int argc, char **argv)
{
	const char *a = shell_arg(argc, argv, 1);
	bool json = a && shell_arg_flag(a, "-j", "--json");

	if (a && !json)
		return shell_arg_unexpected(argv[0], a);
	if (shell_args_max(argc, argv, 2))
		return -EINVAL;
	if (!net_on_its_cpu(argv[0]))
		return -EPERM;
	if (json) {
		nbd_list_json();
		return 0;
	}
	nbd_exports_list();
	nbd_connections_list();
	return 0;
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-list", cmd_nbd_list, "nbd-list [-j]",
		  "NBD exports with their clients (by id), and each client's requests (-j: as JSON)");

/*
 * Drop a client now: nothing more is read from it, its queued replies are
 * discarded (a reset), then its hold on the device goes, so nbd-unexport
 * can follow. A WRITE it was sending is not acknowledged (nbd_server.c).
 */
static int cmd_nbd_disconnect(int argc, char **argv)
{
	const char *arg = shell_arg(argc, argv, 1);
	u32 id;

	if (shell_args_max(argc, argv, 2))
		return -EINVAL;
	if (!net_on_its_cpu(argv[0]))
		return -EPERM;
	if (arg && shell_arg_flag(arg, "-a", "--all")) {
		unsigned int n = nbd_disconnect_all();
		kprintf("nbd-disconnect: %u client%s disconnected\n", n, n == 1 ? "" : "s");
		return 0;
	}
	if (shell_arg_u32(argv[0], "client id", arg, 1, 0xFFFFFFFFu, &id))
		return -EINVAL;
	return nbd_disconnect(id);
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-disconnect", cmd_nbd_disconnect, "nbd-disconnect ID|--all",
		  "drop an NBD client (its id from nbd-list) or every one, at once");
