/*
 * TSC: calibrated against PIT channel 2 at boot, then used for every
 * timestamp; arch_clock_recalibrate() measures again and takes a median.
 */
#include <stdlib.h>

#include "arch.h"
#include "cpu_features.h"
#include "printk.h"
#include "x86.h"

#define PIT_HZ 1193182ULL
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PORT_B 0x61		/* bit0 gate of channel 2, bit1 speaker, bit5 OUT2 */
#define CAL_MS 10

/* Count TSC cycles while PIT channel 2 counts down CAL_MS milliseconds. */
static u64 tsc_cycles_per_window(void)
{
	u16 count = (u16)(PIT_HZ * CAL_MS / 1000);

	outb(PORT_B, (inb(PORT_B) & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(PIT_CMD, 0xB0);	/* channel 2, lo/hi byte, mode 0, binary */
	outb(PIT_CH2, count & 0xFF);
	outb(PIT_CH2, count >> 8);
	u64 t0 = rdtsc();
	for (u64 spins = 0; !(inb(PORT_B) & 0x20); spins++) {
		if (spins > 100000000ULL)
			return 0;	/* no PIT: give up, times print as 0 */
	}
	return rdtsc() - t0;
}

/* One calibration: the TSC rate in kHz from three windows, 0 without a PIT. */
static u64 tsc_measure_khz(void)
{
	u64 best = ~0ULL;

	for (int i = 0; i < 3; i++) {
		u64 c = tsc_cycles_per_window();
		if (c && c < best)
			best = c;	/* the shortest window had the least overhead */
	}
	return best == ~0ULL ? 0 : best / CAL_MS;
}

void tsc_calibrate(void)
{
	cpu_features.tsc_khz = tsc_measure_khz();
	pr_info("tsc: %llu.%03llu MHz (calibrated against the PIT over %d ms)\n",
		(cpu_features.tsc_khz / 1000), (cpu_features.tsc_khz % 1000), CAL_MS);
}

/* qsort's order for u64s. */
static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

u64 arch_clock_recalibrate(unsigned int samples, struct arch_clock_cal *cal)
{
	u64 v[ARCH_CLOCK_MAX_SAMPLES + 1], prev = cpu_features.tsc_khz;
	u32 n = 0;

	if (prev)
		v[n++] = prev;
	for (unsigned int i = 0; i < MIN(samples, ARCH_CLOCK_MAX_SAMPLES); i++) {
		u64 khz = tsc_measure_khz();
		if (khz)
			v[n++] = khz;
	}
	qsort(v, n, sizeof(u64), cmp_u64);
	if (n)
		cpu_features.tsc_khz = v[n / 2];
	if (cal)
		*cal = (struct arch_clock_cal){ .khz = cpu_features.tsc_khz,
						.min_khz = n ? v[0] : 0,
						.max_khz = n ? v[n - 1] : 0,
						.prev_khz = prev,
						.n = n };
	return cpu_features.tsc_khz;
}

u64 arch_cycles(void)
{
	return rdtsc();
}

u64 arch_cycles_to_ns(u64 cycles)
{
	if (!cpu_features.tsc_khz)
		return 0;
	return (u64)((unsigned __int128)cycles * 1000000 / cpu_features.tsc_khz);
}
