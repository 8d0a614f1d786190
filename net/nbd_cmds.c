/* The NBD server's shell commands: nbd-export, nbd-unexport, nbd-list. */
#include <errno.h>

#include "nbd_priv.h"
#include "printk.h"
#include "shell.h"

static int cmd_nbd_export(int argc, char **argv)
{
	const char *spec = shell_only_name(argc, argv, "device");

	return spec ? nbd_export_add(spec) : -EINVAL;
}
SHELL_COMMAND(SHELL_NET, "nbd-export", cmd_nbd_export, "nbd-export DEV[:ro]",
	      "serve a block device over NBD (port 10809)");

static int cmd_nbd_unexport(int argc, char **argv)
{
	const char *dev = shell_only_name(argc, argv, "device");

	return dev ? nbd_export_remove(dev) : -EINVAL;
}
SHELL_COMMAND(SHELL_NET, "nbd-unexport", cmd_nbd_unexport, "nbd-unexport DEV",
	      "stop serving it (refused while clients are connected to it)");

static int cmd_nbd_list(int argc, char **argv)
{
	if (shell_args_max(argc, argv, 1))
		return -EINVAL;
	nbd_exports_list();
	nbd_connections_list();
	return 0;
}
SHELL_COMMAND(SHELL_NET, "nbd-list", cmd_nbd_list, "nbd-list",
	      "NBD exports with their clients, and each client's requests");

