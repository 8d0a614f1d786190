# net/: the glue between netdevs and lwIP (kernel only: lwIP is built for
# the kernel), and the ip= parser (portable, host-tested).
portable-y += net/ipconfig.c net/nbd_proto.c
kernel-y += net/net.c net/sys_arch.c net/net_cmds.c net/nbd_server.c net/nbd_exports.c net/nbd_cmds.c
