/*
 * daxrw: bytes of a Linux device-dax character device (/dev/daxN.M) to
 * stdout or from stdin, through mmap, for the Linux interop suite. Linux's
 * device-dax has no read() or write(), only mmap, and a mapping must be
 * aligned to the device's align (2 MiB or 1 GiB): the range asked for is
 * widened to that for the mapping, and only its bytes are copied.
 *
 *   daxrw r DEV OFFSET LENGTH ALIGN   write those bytes to stdout
 *   daxrw w DEV OFFSET LENGTH ALIGN   store LENGTH bytes from stdin there, then
 *                                     clflush every line and sfence (what a
 *                                     pmem application does: msync on
 *                                     device-dax is EINVAL)
 *
 * Built by test/linux/lib.sh for the guest (static, host gcc); runs in its
 * initramfs. Exit 0, or 1 with one line on stderr.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 6 || (strcmp(argv[1], "r") && strcmp(argv[1], "w"))) {
		fprintf(stderr, "usage: daxrw r|w DEV OFFSET LENGTH ALIGN\n");
		return 1;
	}
	int wr = argv[1][0] == 'w';
	unsigned long long off = strtoull(argv[3], NULL, 0), len = strtoull(argv[4], NULL, 0);
	unsigned long long align = strtoull(argv[5], NULL, 0);
	if (!align || (align & (align - 1)) || !len) {
		fprintf(stderr, "daxrw: bad align or length\n");
		return 1;
	}
	unsigned long long start = off & ~(align - 1);
	unsigned long long end = (off + len + align - 1) & ~(align - 1);
	int fd = open(argv[2], O_RDWR);
	if (fd < 0)
		return die(argv[2]);
	unsigned char *p = mmap(NULL, end - start, PROT_READ | (wr ? PROT_WRITE : 0), MAP_SHARED,
				fd, (off_t)start);
	if (p == MAP_FAILED)
		return die("daxrw: mmap");
	unsigned char *b = p + (off - start);
	for (unsigned long long done = 0; done < len;) {
		ssize_t n = wr ? read(0, b + done, len - done) : write(1, b + done, len - done);
		if (n <= 0)
			return die(wr ? "daxrw: read stdin" : "daxrw: write stdout");
		done += (unsigned long long)n;
	}
	if (wr) {
		for (unsigned long long o = 0; o < len + 64; o += 64)
			__builtin_ia32_clflush(b + (o < len ? o : len - 1));
		__builtin_ia32_sfence();
	}
	munmap(p, end - start);
	close(fd);
	return 0;
}
