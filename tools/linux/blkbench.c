/*
 * blkbench: timed O_DIRECT reads or writes on a Linux block device, for the
 * Linux guest of tools/bench-nbd-client (built there with the host's gcc,
 * static, and packed into the guest's scenario layer).
 *
 *   blkbench DEV read|write seq|rand BYTES THREADS SECS
 *
 * THREADS threads each keep one request of BYTES in flight (so THREADS is
 * the queue depth) for SECS seconds: seq walks the device from offset 0 in
 * BYTES steps, shared by the threads, wrapping at its end; rand picks
 * BYTES-aligned offsets at random, each thread its own sequence. A write
 * run ends with fdatasync (the device's FLUSH), inside the timed span.
 * Prints one line:
 *
 *   blkbench: mibs=M iops=N secs=S busy=P
 *
 * MiB/s and requests per second over the timed span, and P the guest's CPU
 * busy percent over it (all CPUs, /proc/stat: not idle, not iowait).
 * Exit 0, or 1 with one line on stderr.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct job {
	int fd, write, seq;
	unsigned long long bytes, size;
	double deadline;
	atomic_ullong next;	/* seq: the next offset, in requests */
	atomic_ullong done;	/* requests completed */
	atomic_int failed;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* busy and total jiffies of all CPUs (the first line of /proc/stat). */
static void cpu_jiffies(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	*busy = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			*total += v[i];
		*busy = *total - v[3] - v[4];	/* idle, iowait */
	}
	fclose(f);
}

static unsigned long long xorshift(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	unsigned long long slots = j->size / j->bytes, seed = (unsigned long long)pthread_self() | 1;
	void *buf;

	if (posix_memalign(&buf, 4096, j->bytes)) {
		atomic_store(&j->failed, 1);
		return NULL;
	}
	for (unsigned long long i = 0; i < j->bytes; i++)	/* not zeroes: no server may skip them */
		((unsigned char *)buf)[i] = (unsigned char)(xorshift(&seed) >> 24);
	while (now() < j->deadline && !atomic_load(&j->failed)) {
		unsigned long long slot = j->seq ? atomic_fetch_add(&j->next, 1) % slots
						 : xorshift(&seed) % slots;
		off_t off = (off_t)(slot * j->bytes);
		ssize_t n = j->write ? pwrite(j->fd, buf, j->bytes, off) : pread(j->fd, buf, j->bytes, off);

		if (n != (ssize_t)j->bytes) {
			perror(j->write ? "blkbench: pwrite" : "blkbench: pread");
			atomic_store(&j->failed, 1);
			break;
		}
		atomic_fetch_add(&j->done, 1);
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct job j;
	pthread_t tid[64];
	unsigned long long b0, t0, b1, t1;

	if (argc != 7 || (strcmp(argv[2], "read") && strcmp(argv[2], "write")) ||
	    (strcmp(argv[3], "seq") && strcmp(argv[3], "rand"))) {
		fprintf(stderr, "usage: blkbench DEV read|write seq|rand BYTES THREADS SECS\n");
		return 1;
	}
	j.write = !strcmp(argv[2], "write");
	j.seq = !strcmp(argv[3], "seq");
	j.bytes = strtoull(argv[4], NULL, 0);
	int threads = atoi(argv[5]);
	double secs = atof(argv[6]);
	if (!j.bytes || j.bytes % 512 || threads < 1 || threads > 64 || secs <= 0) {
		fprintf(stderr, "blkbench: bad BYTES (a multiple of 512), THREADS (1-64) or SECS\n");
		return 1;
	}
	j.fd = open(argv[1], (j.write ? O_RDWR : O_RDONLY) | O_DIRECT);
	off_t end = j.fd < 0 ? -1 : lseek(j.fd, 0, SEEK_END);	/* a block device's size, too */
	j.size = end > 0 ? (unsigned long long)end : 0;
	if (j.size < j.bytes) {
		fprintf(stderr, "blkbench: %s: cannot open it, or smaller than one request\n", argv[1]);
		return 1;
	}
	cpu_jiffies(&b0, &t0);
	double start = now();
	j.deadline = start + secs;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker, &j)) {
			fprintf(stderr, "blkbench: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	if (!atomic_load(&j.failed) && j.write && fdatasync(j.fd)) {
		perror("blkbench: fdatasync");
		return 1;
	}
	double dt = now() - start;
	cpu_jiffies(&b1, &t1);
	if (atomic_load(&j.failed))
		return 1;
	unsigned long long n = atomic_load(&j.done);
	printf("blkbench: mibs=%.2f iops=%.0f secs=%.2f busy=%.0f\n",
	       (double)(n * j.bytes) / dt / (1 << 20), (double)n / dt, dt,
	       t1 > t0 ? 100.0 * (double)(b1 - b0) / (double)(t1 - t0) : 0.0);
	close(j.fd);
	return 0;
}
