/*
 * The host fake of the page-table entry contract (include/arch.h), after
 * Hafnium's src/arch/fake: entries deliberately unlike x86's, so portable
 * code that writes or tests x86 bits itself, or reads an entry at the wrong
 * level, fails on the host instead of happening to work.
 *
 *   bit 63       always 0 (x86's NX)
 *   bits 60-62   the level the entry was made for (1 = 4K ... 4 = 512G)
 *   bit 59       present
 *   bit 58       table (else a leaf)
 *   bit 53       executable (x86 has the opposite, NX)
 *   bit 52       writable
 *   bits 0-39    (pa >> 12) ^ HOST_PTE_FRAME_XOR: the frame number, scrambled,
 *                where x86 keeps its flag bits
 *
 * Zero is absent at every level. An entry without the present bit is never
 * taken as present, so one written with x86 bits (present in bit 0, address
 * in bits 12-51) reads as a hole. Every accessor called on a present entry
 * with a level other than the one recorded in it aborts with a message, as
 * do malformed arguments (a misaligned leaf, a table at the 4 KiB level).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

#define HOST_PTE_LEVEL_SHIFT 60
#define HOST_PTE_LEVEL_MASK (7ULL << HOST_PTE_LEVEL_SHIFT)
#define HOST_PTE_PRESENT (1ULL << 59)
#define HOST_PTE_TABLE (1ULL << 58)
#define HOST_PTE_EXEC (1ULL << 53)
#define HOST_PTE_WRITE (1ULL << 52)
#define HOST_PTE_FRAME_MASK ((1ULL << 40) - 1)
#define HOST_PTE_FRAME_XOR 0xA5A5A5A5A5ULL
#define HOST_PTE_KNOWN                                                                             \
	(HOST_PTE_LEVEL_MASK | HOST_PTE_PRESENT | HOST_PTE_TABLE | HOST_PTE_EXEC |                 \
	 HOST_PTE_WRITE | HOST_PTE_FRAME_MASK)
#define HOST_PA_LIMIT (1ULL << 52)

/* Report a misuse of the contract: fn was called with level and val (an entry or an argument). */
static __noreturn void pte_abort(const char *fn, enum pg_level level, u64 val, const char *why)
{
	fprintf(stderr, "arch_host: %s(level %d, %#llx): %s\n", fn, (int)level, val, why);
	abort();
}

static void check_level(const char *fn, enum pg_level level, u64 val)
{
	if (level < PG_LEVEL_4K || level > PG_LEVEL_512G)
		pte_abort(fn, level, val, "no such level");
}

static enum pg_level recorded_level(pte_t pte)
{
	return (enum pg_level)((pte.val & HOST_PTE_LEVEL_MASK) >> HOST_PTE_LEVEL_SHIFT);
}

/* Entries read through the contract by this thread (host.h). */
__thread u64 host_pte_reads;

/*
 * Is pte present? Aborts if it is present but was made for another level,
 * or has bits this format never sets.
 */
static bool present_at(const char *fn, enum pg_level level, pte_t pte)
{
	char why[64];

	host_pte_reads++;

	check_level(fn, level, pte.val);
	if (!(pte.val & HOST_PTE_PRESENT))
		return false;
	if (pte.val & ~HOST_PTE_KNOWN)
		pte_abort(fn, level, pte.val, "bits the host format never sets (x86 bits?)");
	if (recorded_level(pte) != level) {
		snprintf(why, sizeof(why), "level mix-up, the entry was made for level %d",
			 (int)recorded_level(pte));
		pte_abort(fn, level, pte.val, why);
	}
	return true;
}

static u64 encode_pa(u64 pa)
{
	return ((pa >> PAGE_SHIFT) ^ HOST_PTE_FRAME_XOR) & HOST_PTE_FRAME_MASK;
}

static u64 decode_pa(pte_t pte)
{
	return ((pte.val & HOST_PTE_FRAME_MASK) ^ HOST_PTE_FRAME_XOR) << PAGE_SHIFT;
}

static u64 made_at(enum pg_level level)
{
	return HOST_PTE_PRESENT | ((u64)level << HOST_PTE_LEVEL_SHIFT);
}

/* The simulated CPU: the leaf levels and the no-execute it lacks (host.h's setters). */
static bool leaf_off[PG_LEVEL_512G + 1];
static bool noexec_off;

void host_set_leaf_allowed(enum pg_level level, bool allowed)
{
	if (level != PG_LEVEL_2M && level != PG_LEVEL_1G)
		pte_abort(__func__, level, allowed, "only 2 MiB and 1 GiB leaves can be turned off");
	leaf_off[level] = !allowed;
}

void host_set_noexec_allowed(bool allowed)
{
	noexec_off = !allowed;
}

void host_cpu_defaults(void)
{
	memset(leaf_off, 0, sizeof(leaf_off));
	noexec_off = false;
}

bool arch_pte_leaf_allowed(enum pg_level level)
{
	check_level(__func__, level, 0);
	return level <= PG_LEVEL_1G && !leaf_off[level];
}

bool arch_pte_noexec_allowed(void)
{
	return !noexec_off;
}

pte_t arch_pte_absent(enum pg_level level)
{
	check_level(__func__, level, 0);
	return (pte_t){0};
}

pte_t arch_pte_table(enum pg_level level, u64 table_pa)
{
	check_level(__func__, level, table_pa);
	if (level == PG_LEVEL_4K)
		pte_abort(__func__, level, table_pa, "no tables below 4 KiB entries");
	if (!IS_ALIGNED(table_pa, PAGE_SIZE) || table_pa >= HOST_PA_LIMIT)
		pte_abort(__func__, level, table_pa, "table address not a page");
	return (pte_t){made_at(level) | HOST_PTE_TABLE | HOST_PTE_WRITE | HOST_PTE_EXEC |
		       encode_pa(table_pa)};
}

pte_t arch_pte_leaf(enum pg_level level, u64 pa, u64 prot)
{
	check_level(__func__, level, pa);
	if (!arch_pte_leaf_allowed(level))
		pte_abort(__func__, level, pa, "no leaves at this level");
	if (!IS_ALIGNED(pa, pg_level_size(level)) || pa >= HOST_PA_LIMIT)
		pte_abort(__func__, level, pa, "leaf address not aligned to its size");
	if (prot & ~(PGPROT_WRITE | PGPROT_EXEC))
		pte_abort(__func__, level, prot, "unknown protection bits");
	return (pte_t){made_at(level) | encode_pa(pa) |
		       ((prot & PGPROT_WRITE) ? HOST_PTE_WRITE : 0) |
		       ((prot & PGPROT_EXEC) ? HOST_PTE_EXEC : 0)};
}

bool arch_pte_is_present(enum pg_level level, pte_t pte)
{
	return present_at(__func__, level, pte);
}

bool arch_pte_is_table(enum pg_level level, pte_t pte)
{
	return present_at(__func__, level, pte) && (pte.val & HOST_PTE_TABLE);
}

bool arch_pte_is_leaf(enum pg_level level, pte_t pte)
{
	return present_at(__func__, level, pte) && !(pte.val & HOST_PTE_TABLE);
}

u64 arch_pte_table_pa(enum pg_level level, pte_t pte)
{
	if (!present_at(__func__, level, pte) || !(pte.val & HOST_PTE_TABLE))
		pte_abort(__func__, level, pte.val, "not a table entry");
	return decode_pa(pte);
}

u64 arch_pte_leaf_pa(enum pg_level level, pte_t pte)
{
	if (!present_at(__func__, level, pte) || (pte.val & HOST_PTE_TABLE))
		pte_abort(__func__, level, pte.val, "not a leaf");
	return decode_pa(pte);
}

u64 arch_pte_prot(enum pg_level level, pte_t pte)
{
	if (!present_at(__func__, level, pte))
		pte_abort(__func__, level, pte.val, "not present");
	return ((pte.val & HOST_PTE_WRITE) ? PGPROT_WRITE : 0) |
	       ((pte.val & HOST_PTE_EXEC) ? PGPROT_EXEC : 0);
}
