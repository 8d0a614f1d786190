/*
 * DIMM health through the Intel NVDIMM _DSM family, function 1 (Get SMART
 * and Health Info: no input; out {u32 status, 128-byte payload}, ndctl's
 * struct nd_intel_smart, Linux's drivers/acpi/nfit/intel.h). The payload is
 * decoded by the nvdimm core (nvdimm/smart.c); this file asks for it. At
 * boot every DIMM whose _DSM bitmap has function 1 gets the core's
 * smart_ops (`list -H` asks again each time, as ndctl does) and one line
 * when its health is not ok or its last shutdown was dirty.
 */
#include <acpi/acpi.h>
#include <errno.h>

#include "acpica.h"
#include "acpica_priv.h"
#include "nd_smart.h"
#include "nvdimm.h"
#include "printk.h"

#define NVDIMM_DSM_SMART 1

/* nd_smart_ops.read: function 1 now; one line when it fails or is malformed. */
static int acpi_smart_read(struct nvdimm *d, struct nd_smart *s)
{
	acpi_handle dev = nvdimm_acpi_lookup(d->handle);
	union acpi_object *o;
	char why[64];
	int rc;

	s->known = false;
	if (!dev) {
		kprintf("%s: SMART: no NVDIMM device with _ADR %#x\n", d->name, d->handle);
		return -ENODEV;
	}
	o = nvdimm_dsm_eval(dev, NVDIMM_DSM_SMART, NULL, 0, d->name);
	if (!o)
		return -EIO;
	rc = nd_smart_decode(o->buffer.pointer, o->buffer.length, s, why, sizeof(why));
	ACPI_FREE(o);
	if (rc)
		kprintf("%s: SMART (_DSM function 1): %s\n", d->name, why);
	return rc;
}

static const struct nd_smart_ops acpi_smart_ops = { acpi_smart_read };

void nvdimm_health_load(void)
{
	if (!nvdimm_count() || acpica_init())
		return;
	for (u32 i = 0; i < nvdimm_count(); i++) {
		struct nvdimm *d = nvdimm_get(i);
		acpi_handle dev = nvdimm_acpi_lookup(d->handle);
		struct nd_smart s;
		char line[160];

		if (!dev || !nvdimm_dsm_supports(dev, NVDIMM_DSM_SMART))
			continue;
		d->smart_ops = &acpi_smart_ops;
		if (acpi_smart_read(d, &s) || !nd_smart_attention(&s))
			continue;
		nd_smart_summary(&s, line, sizeof(line));
		pr_warn("nvdimm %s: %s\n", d->name, line);
	}
}
