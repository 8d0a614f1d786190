# net/: the glue between netdevs and lwIP (kernel only: lwIP is built for
# the kernel), the ip= parser, the NBD protocol engine and its view of a
# block device (portable, host-tested).
portable-y += net/ipconfig.c net/nbd_proto.c net/nbd_handshake.c net/nbd_transmission.c \
	net/nbd_pmem.c
kernel-y += net/net.c net/sys_arch.c net/net_cmds.c net/nbd_server.c net/nbd_admit.c net/nbd_exports.c net/nbd_cmds.c
