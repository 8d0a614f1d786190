/* memmap= (Linux syntax, FACTS 7.2) on the e820 table, and e820_init(). */
/* Ours first: newlib's <sys/cdefs.h> then redefines __used & co silently. */
#include "boot_info.h"
#include "e820.h"
#include "memmap_fw.h"
#include "params.h"
#include "printk.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 2, 3)))
static int memmap_reject(const char *spec, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_err("memmap=%s: %s\n", spec, why);
	return -EINVAL;
}

static int memmap_missing_value(void)
{
	pr_err("memmap: needs a value (memmap=nn!ss)\n");
	return -EINVAL;
}

/*
 * A number must start with a digit (parse_size alone would let "\t1" pass).
 * From a digit on, parse_size can only fail by overflow: say -ERANGE.
 */
static int memmap_number(const char *s, u64 *out, const char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	return parse_size(s, out, end) ? -ERANGE : 0;
}

static int memmap_parse_spec(const char *text, struct memmap_spec *s)
{
	const char *p;
	int ret;

	s->text = text;
	if (!*text)
		return memmap_reject(text, "empty spec");
	if (strcmp(text, "exactmap") == 0)
		return memmap_reject(text, "exactmap is not supported (the firmware map is always kept)");
	ret = memmap_number(text, &s->size, &p);
	if (ret)
		return memmap_reject(text, "bad size (%s)",
				     ret == -ERANGE ? "too large" : "not a number");
	s->op = *p;
	if (!*p)
		return 0;
	if (*p == '%')
		return memmap_reject(text, "type conversion (nn%%ss-old+new) is not supported");
	if (!strchr("!@#$", *p))
		return memmap_reject(text, "unknown operator '%c' (expected ! @ # or $)", *p);
	ret = memmap_number(p + 1, &s->start, &p);
	if (ret)
		return memmap_reject(text, "bad start address (%s)",
				     ret == -ERANGE ? "too large" : "missing or not a number");
	if (*p)
		return memmap_reject(text, "trailing characters \"%s\"", p);
	return 0;
}

static u64 ram_end(const struct e820_table *t)
{
	u64 end = 0;

	for (u32 i = 0; i < t->nr; i++)
		if (t->entries[i].type == E820_TYPE_RAM)
			end = MAX(end, t->entries[i].addr + t->entries[i].size);
	return end;
}

/*
 * What a `!` range may lie on, as on Linux (where type 12 simply wins over
 * whatever it overlaps): RAM and firmware-owned memory, reserved, ACPI data
 * and ACPI NVS. Reserved memory becomes pmem with a warning (the firmware
 * may rewrite it at the next boot), unless it holds the ACPI tables; ACPI
 * data and NVS, which the firmware and ACPICA still use, are trimmed off or
 * the range refused (memmap_fw.c).
 */
static bool memmap_may_cover(u32 type)
{
	return type == E820_TYPE_RAM || type == E820_TYPE_RESERVED ||
	       type == E820_TYPE_ACPI || type == E820_TYPE_NVS;
}

/*
 * The `!` rule (our choice; Linux checks nothing): [a, b) must be covered
 * entirely by map entries of a type memmap_may_cover() allows, so pmem is
 * never made of bad RAM, existing pmem, holes (MMIO) or memory past the end
 * of RAM; those are rejected, naming the first thing the range hits. What
 * it may do on firmware-owned memory is up to memmap_fw.c. `t` is
 * sanitized (sorted, non-overlapping).
 */
static int memmap_check_ram(const struct e820_table *t, const struct memmap_spec *s)
{
	u64 a = s->start, b = s->start + s->size, pos = a;

	for (u32 i = 0; i < t->nr && pos < b; i++) {
		const struct e820_entry *e = &t->entries[i];
		u64 end = e->addr + e->size;

		if (end <= pos)
			continue;
		if (e->addr >= b)
			break;
		if (e->addr > pos)
			break;	/* hole at [pos, e->addr) */
		if (!memmap_may_cover(e->type))
			return memmap_reject(
				s->text,
				"[mem 0x%016llx-0x%016llx] overlaps %s [mem 0x%016llx-0x%016llx]",
				a, (b - 1), e820_type_name(e->type), e->addr, (end - 1));
		pos = end;
	}
	if (pos >= b)
		return 0;
	if (pos >= ram_end(t))
		return memmap_reject(
			s->text,
			"[mem 0x%016llx-0x%016llx] is not usable RAM (beyond end of RAM 0x%016llx)",
			a, (b - 1), ram_end(t));
	return memmap_reject(
		s->text,
		"[mem 0x%016llx-0x%016llx] is not usable RAM (hole in the map at 0x%016llx)", a,
		(b - 1), pos);
}

/*
 * Adding one range to a sanitized table of n entries, k of which overlap
 * it, yields at most n + k + 3 entries (two straddling entries split, k + 1
 * holes filled). Refuse up front rather than let sanitize drop ranges.
 */
static int memmap_check_room(const struct e820_table *t, const struct memmap_spec *s)
{
	u64 b = s->start + s->size;
	u32 k = 0;

	for (u32 i = 0; i < t->nr; i++) {
		const struct e820_entry *e = &t->entries[i];

		if (e->addr < b && e->addr + e->size > s->start)
			k++;
	}
	if (t->nr + k + 3 > E820_MAX_ENTRIES)
		return memmap_reject(s->text, "e820 table full (%u entries)",
				     (unsigned int)t->nr);
	return 0;
}

/* Fill *k from what the boot path recorded in *bi. */
static void e820_keep_from_boot(struct e820_keep *k, const struct boot_info *bi)
{
	u32 n = MIN(bi->nr_reserved, (u32)BOOT_MAX_RESERVED);

	k->nr = 0;
	/* BIOS data, EBDA, the real-mode areas: the kernel reserves them too. */
	k->r[k->nr++] = (struct boot_reserved){ 0, 1 * MiB, "the first MiB (BIOS data)" };
	/* Its text, data, boot page tables and stacks (all in the image). */
	k->r[k->nr++] = (struct boot_reserved){ bi->kernel_start,
						bi->kernel_end - bi->kernel_start,
						"the kernel image" };
	for (u32 i = 0; i < n; i++)
		k->r[k->nr++] = bi->reserved[i];
}

/* Linux would give a pmem device over the running kernel; we refuse (FACTS 7.2). */
static int memmap_check_keep(const struct e820_keep *keep, const struct memmap_spec *s)
{
	u64 a = s->start, b = s->start + s->size;

	for (u32 i = 0; keep && i < keep->nr; i++) {
		const struct boot_reserved *r = &keep->r[i];

		if (r->size && r->addr < b && a < r->addr + r->size)
			return memmap_reject(
				s->text,
				"[mem 0x%016llx-0x%016llx] covers %s [mem 0x%016llx-0x%016llx], refused",
				a, b - 1, r->what ? r->what : "boot data", r->addr,
				r->addr + r->size - 1);
	}
	return 0;
}

/*
 * Rules for nn!ss (our choice, stricter than Linux): nn non-zero, ss and nn
 * 4 KiB aligned, no wrap past 2^64, the range all RAM or firmware-owned
 * memory (memmap_check_ram) and nothing the kernel runs from or was handed
 * (memmap_check_keep); then trimmed clear of ACPI data and NVS, or refused
 * (memmap_spare_e820: *s may shrink). Not 2 MiB aligned is allowed with a
 * warning: Linux refuses pfn devices on such namespaces (FACTS 7.2).
 */
static int memmap_check_pram(const struct e820_table *t, const struct e820_keep *keep,
			     struct memmap_spec *s)
{
	if (!IS_ALIGNED(s->start, PAGE_SIZE) || !IS_ALIGNED(s->size, PAGE_SIZE))
		return memmap_reject(s->text, "start 0x%llx and size 0x%llx must be 4 KiB aligned",
				     s->start, s->size);
	int ret = memmap_check_ram(t, s);

	if (!ret)
		ret = memmap_check_keep(keep, s);
	if (!ret)
		ret = memmap_spare_e820(t, s);
	if (ret)
		return ret;
	if (!IS_ALIGNED(s->start, PMD_SIZE) || !IS_ALIGNED(s->size, PMD_SIZE))
		pr_warn("memmap=%s: start 0x%llx or size 0x%llx not 2 MiB aligned; pfn devices need 2 MiB alignment\n",
			s->text, s->start, s->size);
	return 0;
}

static u32 memmap_op_type(char op)
{
	switch (op) {
	case '!':	return E820_TYPE_PRAM;
	case '@':	return E820_TYPE_RAM;
	case '#':	return E820_TYPE_ACPI;
	default:	return E820_TYPE_RESERVED;	/* '$' */
	}
}

/* nn<op>ss: add [ss, ss+nn) with the op's type (a `!` range as trimmed, recorded). */
static int memmap_add_range(struct e820_table *t, const struct e820_keep *keep,
			    struct memmap_spec *s)
{
	int ret;

	if (!s->size)
		return memmap_reject(s->text, "size is 0");
	if (s->start + s->size < s->start)
		return memmap_reject(s->text, "range 0x%llx+0x%llx wraps past 2^64", s->start,
				     s->size);
	if (s->op == '!') {
		ret = memmap_check_pram(t, keep, s);
		if (ret)
			return ret;
	}
	ret = memmap_check_room(t, s);
	if (ret)
		return ret;
	e820_add(t, s->start, s->size, memmap_op_type(s->op));	/* room checked */
	e820_sanitize(t);
	if (s->op == '!')
		memmap_fw_record(s);
	return 0;
}

/*
 * Bare nn: drop usable RAM at and above nn, like Linux's mem=. Keeps the
 * table sanitized: removing RAM leaves gaps, never new neighbours.
 */
static int memmap_limit(struct e820_table *t, const struct memmap_spec *s)
{
	u32 n = 0;

	if (!s->size)
		return memmap_reject(s->text, "a limit of 0 would remove all RAM");
	for (u32 i = 0; i < t->nr; i++) {
		struct e820_entry e = t->entries[i];

		if (e.type == E820_TYPE_RAM && e.addr >= s->size)
			continue;
		if (e.type == E820_TYPE_RAM && e.addr + e.size > s->size)
			e.size = s->size - e.addr;
		t->entries[n++] = e;
	}
	t->nr = n;
	return 0;
}

static int memmap_apply_one(struct e820_table *t, const struct e820_keep *keep, const char *text)
{
	struct memmap_spec s;
	int ret = memmap_parse_spec(text, &s);

	if (ret)
		return ret;
	if (!s.op)
		return memmap_limit(t, &s);
	return memmap_add_range(t, keep, &s);
}

/*
 * Contract (see e820.h): specs apply left to right, each to the table the
 * previous ones left, so a later `!` sees an earlier one's pmem. A bad spec
 * prints one line and changes nothing; the good ones still apply. The table
 * is sanitized on entry and on return.
 */
int e820_parse_memmap(struct e820_table *t, const char *arg, const struct e820_keep *keep)
{
	char spec[MEMMAP_SPEC_MAX];
	int ret = 0;

	if (!arg)
		return memmap_missing_value();
	e820_sanitize(t);
	memmap_fw_begin(t);
	for (;;) {
		size_t len = strcspn(arg, ",");

		if (len >= sizeof(spec)) {
			pr_err("memmap=%.*s...: spec longer than %zu characters\n",
			       32, arg, sizeof(spec) - 1);
			ret = -EINVAL;
		} else {
			memcpy(spec, arg, len);
			spec[len] = '\0';
			if (memmap_apply_one(t, keep, spec))
				ret = -EINVAL;
		}
		if (!arg[len])
			break;
		arg += len + 1;
	}
	e820_sanitize(t);
	return ret;
}

/*
 * memmap= occurrences, recorded by the parameter setter (which runs before
 * e820_init) as one comma-separated list in command-line order: specs apply
 * left to right either way, so memmap=A memmap=B is memmap=A,B. The list
 * fits: it is shorter than the command line it came from.
 */
static char memmap_specs[BOOT_CMDLINE_MAX];
static size_t memmap_specs_len;

static int memmap_param_set(const char *val)
{
	size_t len, sep;

	if (!val)
		return memmap_missing_value();
	len = strlen(val);
	sep = memmap_specs_len ? 1 : 0;
	if (len + sep >= sizeof(memmap_specs) - memmap_specs_len)
		return memmap_reject(val, "memmap= values longer than %zu bytes in all, ignored",
				     sizeof(memmap_specs) - 1);
	if (sep)
		memmap_specs[memmap_specs_len++] = ',';
	memcpy(memmap_specs + memmap_specs_len, val, len + 1);
	memmap_specs_len += len;
	return 0;
}
void e820_reset(void)
{
	memmap_specs[0] = '\0';
	memmap_specs_len = 0;
	e820_table.nr = 0;
}

KERNEL_PARAM("memmap", memmap_param_set,
	     "nn!ss: carve [ss,ss+nn) out of RAM as legacy pmem (type 12); "
	     "also nn@ss nn#ss nn$ss and a bare nn limit (Linux syntax)");

static void e820_add_firmware(const struct boot_info *bi)
{
	u32 n = MIN(bi->nr_mem, (u32)BOOT_MAX_MEM);

	e820_table.nr = 0;
	for (u32 i = 0; i < n; i++) {
		const struct boot_mem_range *r = &bi->mem[i];
		int ret = e820_add(&e820_table, r->addr, r->size, r->type);

		if (ret)
			pr_err("e820: firmware range addr 0x%llx size 0x%llx type %u ignored (%s)\n",
			       r->addr, r->size, (unsigned int)r->type,
			       ret == -ENOSPC ? "table full" : "empty or wraps");
	}
	if (bi->mem_truncated)
		pr_warn("e820: the loader's map had more than %u ranges; the rest is lost\n",
			(unsigned int)BOOT_MAX_MEM);
}

/*
 * Contract: call after params_parse() (which records memmap=). Rebuilds
 * e820_table from bi->mem, prints it, applies each memmap= value in order
 * and, if there were any, prints the result as Linux does ("user: [mem ...]").
 */
void e820_init(const struct boot_info *bi)
{
	static struct e820_keep keep;

	e820_add_firmware(bi);
	e820_sanitize(&e820_table);
	pr_info("e820: firmware map (from %s)\n",
		bi->mem_source ? bi->mem_source : "unknown source");
	e820_print(&e820_table, "BIOS-e820");
	if (!memmap_specs_len)
		return;
	e820_keep_from_boot(&keep, bi);
	e820_parse_memmap(&e820_table, memmap_specs, &keep);
	pr_info("e820: user-defined physical RAM map:\n");
	e820_print(&e820_table, "user");
}
