/*
 * The arch contract (include/arch.h) for host unit tests: "physical memory"
 * is one large sparse anonymous mapping, so page tables built by mm/ are real
 * tables inside it and can be walked in software.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "host.h"

struct cpu_features cpu_features = {
	.vendor = "HostSim",
	.clflush_size = 64,
	.phys_addr_bits = 46,
	.virt_addr_bits = 48,
	.pse = true,
	.pdpe1gb = true,
	.nx = true,
	.sse2 = true,
	.clflush = true,
	.tsc_khz = 1000000,
};

static u8 *phys_base;
static char console_buf[1 << 20];
static size_t console_len;
bool host_console_echo;
u64 host_tlb_flushes;

static u8 *sim_memory(void)
{
	if (!phys_base) {
		phys_base = mmap(NULL, HOST_PHYS_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (phys_base == MAP_FAILED) {
			perror("arch_host: mmap of simulated physical memory");
			exit(2);
		}
		host_console_echo = getenv("HOST_CONSOLE") != NULL;
	}
	return phys_base;
}

void *phys_to_virt(u64 pa)
{
	if (pa >= HOST_PHYS_SIZE) {
		fprintf(stderr, "arch_host: phys_to_virt(%#llx) outside simulated memory\n",
			(unsigned long long)pa);
		abort();
	}
	return sim_memory() + pa;
}

u64 virt_to_phys(const void *va)
{
	const u8 *p = va;

	if (p < sim_memory() || p >= phys_base + HOST_PHYS_SIZE) {
		fprintf(stderr, "arch_host: virt_to_phys(%p) outside simulated memory\n", va);
		abort();
	}
	return (u64)(p - phys_base);
}

void arch_flush_tlb_range(u64 va, u64 len)
{
	(void)va;
	(void)len;
	host_tlb_flushes++;
}

void arch_flush_tlb_all(void)
{
	host_tlb_flushes++;
}

static u64 host_root;

u64 arch_pgtable_root(void)
{
	return host_root;
}

u64 arch_cycles(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

u64 arch_cycles_to_ns(u64 cycles)
{
	return cycles;	/* the host "TSC" counts nanoseconds */
}

void arch_console_write(const char *s, size_t n)
{
	sim_memory();
	if (console_len + n < sizeof(console_buf)) {
		memcpy(console_buf + console_len, s, n);
		console_len += n;
		console_buf[console_len] = 0;
	}
	if (host_console_echo)
		fwrite(s, 1, n, stdout);
}

int arch_console_getc(void)
{
	return -1;
}

void arch_exit(int status)
{
	fflush(stdout);
	exit(status);
}

const char *host_console_text(void)
{
	return console_buf;
}

void host_console_reset(void)
{
	console_len = 0;
	console_buf[0] = 0;
}

bool host_console_has(const char *needle)
{
	return strstr(console_buf, needle) != NULL;
}
