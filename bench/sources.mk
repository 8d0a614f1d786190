# The benchmark suite (docs/PERFORMANCE.md): kernel only, never in the host tests.
kernel-y += bench/runner.c bench/report.c
kernel-y += bench/memmap.c bench/overhead.c bench/reprobe.c bench/blk.c bench/lookup.c bench/btt.c
# The network benchmark's guest side (tools/bench-net): raw TCP through lwIP, and the CPU's copy.
kernel-y += bench/net_thr.c bench/nbd_memcpy.c
# The TLS benchmark's guest side (tools/bench-tls): the AEADs alone, over mbedTLS's headers (Makefile).
kernel-y += bench/tls_cipher.c
