# net/: the glue between netdevs and lwIP (kernel only: lwIP is built for
# the kernel), the ip= parser, the NBD protocol engine and its view of a
# block device, the HTTPS API's boot files (portable, host-tested).
portable-y += net/ipconfig.c net/nbd_proto.c net/nbd_handshake.c net/nbd_transmission.c \
	net/nbd_pmem.c net/nbd_export_spec.c net/nbd_keys.c net/nbd_wcache.c net/api_files.c
kernel-y += net/net.c net/sys_arch.c net/net_cmds.c net/nbd_server.c net/nbd_clients.c net/nbd_admit.c net/nbd_exports.c net/nbd_cmds.c net/nbd_metrics.c \
	net/nbd_tls.c net/api_server.c
# The HTTPS API's status page (net/api_page.html) as bytes in .rodata
# (include/api_page.h); the Makefile adds the dependency on the .html.
kernel-y += net/api_page.S
# TLS 1.2 server sessions over mbedTLS (include/tls_server.h), with
# pre-shared keys or a certificate: portable, host-tested. The kernel links
# them as an archive next to mbedTLS's (Makefile, TLS_KLIB): the image gains
# them once something calls them.
tls-y := net/tls_session.c net/tls_psk.c net/tls_cert.c net/tls_entropy.c
host-y += $(tls-y)
# The HTTP API's parsers (include/http_request.h, include/api_json.h):
# portable, host-tested, over Debian's http-parser and jsmn (Makefile,
# API_INC). The kernel links them as an archive like tls-y: the image gains
# them once something calls them.
api-y := net/http_request.c net/api_json.c net/api_handlers.c net/api_jobs.c
host-y += $(api-y)
