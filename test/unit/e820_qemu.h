/* Test data shared by the e820 and memmap= host tests: QEMU's 1 GiB map. */
#ifndef PMEMK_TEST_E820_QEMU_H
#define PMEMK_TEST_E820_QEMU_H

#include "e820.h"

#define R(a, s, t) { (a), (s), (t) }

/* QEMU 7.2 pc, -m 1G, as SeaBIOS reports it (without the AMD HT hole). */
static const struct e820_entry qemu_1g[] = {
	R(0, 0x9fc00, 1),
	R(0x9fc00, 0x400, 2),
	R(0xf0000, 0x10000, 2),
	R(0x100000, 0x3fee0000, 1),
	R(0x3ffe0000, 0x20000, 2),
	R(0xfffc0000, 0x40000, 2),
};

#endif
