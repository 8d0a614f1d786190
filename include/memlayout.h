/*
 * The kernel's virtual address space (x86-64, 4-level paging, 48-bit VA).
 * Linux's layout, so readers from the domain find things where they expect:
 *
 *   0x0000000000000000  unmapped after boot (NULL and low addresses fault)
 *   ...
 *   0xffff888000000000  PAGE_OFFSET: direct map of physical memory
 *                       (RAM at boot; pmem when a device is brought up)
 *   0xffffc88000000000  end of the direct map (64 TiB)
 *   0xffffc90000000000  DAX_MAP_BASE: devdax mappings (nd_dax.h), 64 slots
 *                       of 256 GiB, leaves of the device's align
 *   0xffffd90000000000  end of the devdax mappings (16 TiB)
 *   0xffffea0000000000  VMEMMAP_BASE: struct page array, sparsely populated
 *   0xffffeb0000000000  end of the vmemmap (1 TiB: 64 TiB of 4 KiB pages)
 *   0xffffffff80000000  KERNEL_VMA: kernel image; physical 0 maps here, the
 *                       image itself is loaded at KERNEL_LMA (2 MiB)
 *
 * During boot (boot/multiboot2.S) the first 4 GiB are also identity mapped
 * and direct mapped with 2 MiB pages; kmain replaces those tables.
 */
#ifndef PMEMK_MEMLAYOUT_H
#define PMEMK_MEMLAYOUT_H

#define PAGE_OFFSET 0xffff888000000000
#define DIRECT_MAP_SIZE (64ULL << 40)
#define DAX_MAP_BASE 0xffffc90000000000
#define DAX_MAP_SLOT_SIZE (256ULL << 30)
#define DAX_MAP_SLOTS 64
#define VMEMMAP_BASE 0xffffea0000000000
#define VMEMMAP_SIZE (1ULL << 40)
#define KERNEL_VMA 0xffffffff80000000
#define KERNEL_LMA 0x200000

#endif
