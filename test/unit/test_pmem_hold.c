/*
 * Host tests: one hold per device (pmem_hold). Every kind of holder, on
 * every kind of block device (raw, sector, devdax, fsdax), keeps the
 * namespace from being detached, disabled, reconfigured or checked, and the
 * refusal names that holder in one line; pins taken around the holds
 * refuse too; once released, the namespace changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "host.h"
#include "nd_btt.h"
#include "nd_dax.h"
#include "nd_pfn.h"
#include "pfn_t.h"

#define NS_START (4 * GiB)
#define NS_SIZE (256 * MiB)

static struct nd_namespace_io *ns;

static int setup(void **state)
{
	struct host_nd_machine m = { .ns_start = NS_START, .ns_size = NS_SIZE, .probe = true };

	(void)state;
	host_set_leaf_allowed(PG_LEVEL_1G, true);
	ns = host_nd_machine(&m);
	return 0;
}

/* The busy line for one hold of `kind` by "holder K". */
static void busy_line(const char *dev, enum pmem_hold_kind kind, char *buf, size_t len)
{
	static const char *const what[PMEM_HOLD_KINDS] = {
		[PMEM_HOLD_CLIENT] = "exported to 1 client",
		[PMEM_HOLD_EXPORT] = "exported",
		[PMEM_HOLD_MAP] = "1 mapping of its pages",
		[PMEM_HOLD_DAX] = "1 direct-access address lent",
		[PMEM_HOLD_IO] = "in use by 1 command",
	};

	snprintf(buf, len, "%s: busy: %s (holder %d)\n", dev, what[kind], kind);
}

/* Every teardown of the namespace is refused with the line; the device stays. */
static void refused_with(struct pmem_device *dev, const char *line)
{
	for (int op = 0; op < 4; op++) {
		host_console_reset();
		int err = op == 0 ? nd_namespace_detach(ns) :
			  op == 1 ? nd_namespace_disable(ns) :
			  op == 2 ? nd_namespace_reconfigure(ns, &host_nd_kinds[0].req) :
				    nd_btt_check_namespace(ns, false);
		assert_int_equal(err, -EBUSY);
		if (!host_console_has(line))
			fail_msg("op %d: want '%s', console: %s", op, line, host_console_text());
		assert_ptr_equal(pmem_find(dev->name), dev);
		assert_false(ns->disabled);
	}
}

static void detach_names_every_kind_of_holder_on_every_device(void **state)
{
	char line[128], who[24];

	(void)state;
	for (size_t d = 0; d < ARRAY_SIZE(host_nd_kinds); d++) {
		assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[d].req), 0);
		struct pmem_device *dev = pmem_find(host_nd_kinds[d].dev);
		assert_non_null(dev);
		for (int k = 0; k < PMEM_HOLD_KINDS; k++) {
			struct pmem_hold h;
			snprintf(who, sizeof(who), "holder %d", k);
			assert_int_equal(pmem_hold(dev, (enum pmem_hold_kind)k, who, &h), 0);
			busy_line(host_nd_kinds[d].dev, (enum pmem_hold_kind)k, line, sizeof(line));
			refused_with(dev, line);
			pmem_release(&h);
			assert_null(h.dev);
		}
	}
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[0].req), 0);
	assert_non_null(pmem_find("pmem0"));
}

/* Two kinds held: the refusal names the first in enum order; counts are plural. */
static void detach_names_the_first_kind_with_its_count(void **state)
{
	struct pmem_device *dev = pmem_find("pmem0");
	struct pmem_hold io, c1, c2;

	(void)state;
	assert_int_equal(pmem_hold(dev, PMEM_HOLD_IO, "write on CPU 1", &io), 0);
	assert_int_equal(pmem_hold(dev, PMEM_HOLD_CLIENT, "nbd client A", &c1), 0);
	assert_int_equal(pmem_hold(dev, PMEM_HOLD_CLIENT, "nbd client B", &c2), 0);
	refused_with(dev, "pmem0: busy: exported to 2 clients (nbd client B)\n");
	pmem_release(&c2);
	pmem_release(&c1);
	pmem_release(&c1); /* twice: nothing more */
	assert_int_equal(pmem_holds("pmem0"), 1);
	refused_with(dev, "pmem0: busy: in use by 1 command (write on CPU 1)\n");
	pmem_release(&io);
	assert_int_equal(pmem_holds("pmem0"), 0);
	assert_int_equal(nd_namespace_detach(ns), 0);
}

/* The users that hold through their own calls: direct access, a devdax mapping, I/O by name. */
static void users_hold_through_their_calls(void **state)
{
	struct pmem_dax dax;
	struct dax_mapping m;
	struct pmem_hold h;

	(void)state;
	assert_true(pmem_direct_access(pmem_find("pmem0"), 8, "dax test", &dax) > 0);
	refused_with(pmem_find("pmem0"), "pmem0: busy: 1 direct-access address lent (dax test)\n");
	pmem_dax_put(&dax);
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[2].req), 0);
	assert_int_equal(dax_map(nd_dax_find("dax0.0"), 0, 2 * MiB, "dax-map 0", &m), 0);
	refused_with(pmem_find("dax0.0"), "dax0.0: busy: 1 mapping of its pages (dax-map 0)\n");
	dax_unmap(&m);
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[1].req), 0);
	assert_int_equal(pmem_hold_name("pmem0s", PMEM_HOLD_IO, "cmp on CPU 0", &h), 0);
	refused_with(h.dev, "pmem0s: busy: in use by 1 command (cmp on CPU 0)\n");
	pmem_release(&h);
	/* A BTT lends no addresses: a refusal holds nothing. */
	assert_int_equal(pmem_direct_access(pmem_find("pmem0s"), 0, "x", &dax), -EOPNOTSUPP);
	assert_null(dax.hold.dev);
	assert_int_equal(pmem_holds("pmem0s"), 0);
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[0].req), 0);
}

/* A hold pins a pfn device's pages; a pin taken without a hold refuses too. */
static void pins_around_the_holds_refuse_detach(void **state)
{
	struct pmem_hold h;
	struct kmap km;

	(void)state;
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[3].req), 0);
	struct pmem_device *dev = pmem_find("pmem0m");
	struct dev_pagemap *pgmap = &nd_pfn_of(ns)->pgmap;
	assert_int_equal(pmem_hold(dev, PMEM_HOLD_EXPORT, "nbd", &h), 0);
	assert_int_equal(pgmap->pins, 1);
	pmem_release(&h);
	assert_int_equal(pgmap->pins, 0);
	assert_non_null(kmap_pfn(phys_to_pfn_t(dev->phys, PFN_DEV | PFN_MAP), &km));
	refused_with(dev, "pmem0m: busy: 1 pages pinned");
	kunmap_pfn(&km);
	assert_int_equal(nd_namespace_reconfigure(ns, &host_nd_kinds[0].req), 0);
}

/* Nothing can be held on a device that is gone. */
static void no_hold_on_a_detached_device(void **state)
{
	struct pmem_device *dev = pmem_find("pmem0");
	struct pmem_hold h;

	(void)state;
	assert_int_equal(nd_namespace_detach(ns), 0);
	assert_null(pmem_find("pmem0"));
	assert_int_equal(pmem_hold(dev, PMEM_HOLD_IO, "late", &h), -ENXIO);
	assert_null(h.dev);
	assert_int_equal(pmem_hold_name("pmem0", PMEM_HOLD_IO, "late", &h), -ENODEV);
	assert_null(h.dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(detach_names_every_kind_of_holder_on_every_device, setup),
		cmocka_unit_test_setup(detach_names_the_first_kind_with_its_count, setup),
		cmocka_unit_test_setup(users_hold_through_their_calls, setup),
		cmocka_unit_test_setup(pins_around_the_holds_refuse_detach, setup),
		cmocka_unit_test_setup(no_hold_on_a_detached_device, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
