# The benchmark suite (docs/PERFORMANCE.md): kernel only, never in the host tests.
kernel-y += bench/runner.c bench/memmap.c bench/blk.c
