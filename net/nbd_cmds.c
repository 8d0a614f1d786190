/* The NBD server's shell commands: nbd-export, nbd-unexport, nbd-list, nbd-disconnect (boot CPU only). */
#include <errno.h>

#include "nbd_priv.h"
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
SHELL_COMMAND_NET(SHELL_NET, "nbd-export", cmd_nbd_export, "nbd-export DEV[:ro]",
		  "serve a block device over NBD (port 10809)");

static int cmd_nbd_unexport(int argc, char **argv)
{
	const char *dev = shell_only_name(argc, argv, "device");

	if (!net_on_its_cpu(argv[0]))
		return -EPERM;
	return dev ? nbd_export_remove(dev) : -EINVAL;
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-unexport", cmd_nbd_unexport, "nbd-unexport DEV",
		  "stop serving it (refused while clients are connected to it: nbd-disconnect)");

static int cmd_nbd_list(int argc, char **argv)
{
	if (shell_args_max(argc, argv, 1))
		return -EINVAL;
	if (!net_on_its_cpu(argv[0]))
		return -EPERM;
	nbd_exports_list();
	nbd_connections_list();
	return 0;
}
SHELL_COMMAND_NET(SHELL_NET, "nbd-list", cmd_nbd_list, "nbd-list",
		  "NBD exports with their clients (by id), and each client's requests");

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
