/*
 * ACPI 6.2's NVDIMM label methods on a DIMM device (ACPI 6.4 §6.5.10),
 * the label interface of a DIMM whose _DSM has no label functions:
 *   _LSI ()                      -> Package { status, area size, max transfer }
 *   _LSR (offset, length)        -> Package { status, Buffer data }
 *   _LSW (offset, length, data)  -> status
 * all Integers but the data; status 0 is success. Linux uses them only
 * then (drivers/acpi/nfit/core.c), and so does nvdimm_dsm.c.
 */
#include <acpi/acpi.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "acpica_priv.h"
#include "printk.h"

static bool has_method(acpi_handle dev, const char *name)
{
	acpi_handle h;

	return ACPI_SUCCESS(acpi_get_handle(dev, (acpi_string)name, &h));
}

static bool lsx_present(acpi_handle dev)
{
	return has_method(dev, "_LSI") && has_method(dev, "_LSR");
}

static bool lsx_writable(acpi_handle dev)
{
	return has_method(dev, "_LSW");
}

/* Evaluate `method`; its result object (ACPI_FREE it), or NULL after one line. */
static union acpi_object *lsx_eval(acpi_handle dev, const char *method, union acpi_object *args,
				   u32 nargs, const char *who)
{
	struct acpi_object_list list = { nargs, args };
	struct acpi_buffer out = { ACPI_ALLOCATE_BUFFER, NULL };
	acpi_status st = acpi_evaluate_object(dev, (acpi_string)method, nargs ? &list : NULL, &out);

	if (ACPI_FAILURE(st)) {
		kprintf("%s: %s: %s\n", who, method, acpi_format_exception(st));
		return NULL;
	}
	if (!out.pointer)
		kprintf("%s: %s returned nothing\n", who, method);
	return out.pointer;
}

/* Element i of package o as an integer, or -1 (with a line) when it is none. */
static long long pkg_int(const union acpi_object *o, u32 i, const char *method, const char *who)
{
	if (o->type != ACPI_TYPE_PACKAGE || i >= o->package.count ||
	    o->package.elements[i].type != ACPI_TYPE_INTEGER) {
		kprintf("%s: %s returned no integer element %u\n", who, method, i);
		return -1;
	}
	return (long long)o->package.elements[i].integer.value;
}

static int lsx_info(acpi_handle dev, u32 *size, u32 *max_xfer, const char *who)
{
	union acpi_object *o = lsx_eval(dev, "_LSI", NULL, 0, who);
	long long st, sz, xf;
	int rc = -EIO;

	if (!o)
		return -EIO;
	st = pkg_int(o, 0, "_LSI", who);
	sz = pkg_int(o, 1, "_LSI", who);
	xf = pkg_int(o, 2, "_LSI", who);
	if (st == 0 && sz >= 0 && xf >= 0 && sz <= UINT32_MAX && xf <= UINT32_MAX) {
		*size = (u32)sz;
		*max_xfer = (u32)xf;
		rc = 0;
	} else if (st > 0) {
		kprintf("%s: _LSI: status %#llx\n", who, st);
	}
	ACPI_FREE(o);
	return rc;
}

static int lsx_read(acpi_handle dev, u32 off, u32 len, u8 *dst, const char *who)
{
	union acpi_object args[2], *o, *data;
	long long st;
	int rc = -EIO;

	args[0].type = args[1].type = ACPI_TYPE_INTEGER;
	args[0].integer.value = off;
	args[1].integer.value = len;
	o = lsx_eval(dev, "_LSR", args, 2, who);
	if (!o)
		return -EIO;
	st = pkg_int(o, 0, "_LSR", who);
	data = o->type == ACPI_TYPE_PACKAGE && o->package.count > 1 ? &o->package.elements[1] : NULL;
	if (st > 0)
		kprintf("%s: _LSR (%u, %u): status %#llx\n", who, off, len, st);
	else if (st == 0 && (!data || data->type != ACPI_TYPE_BUFFER || data->buffer.length < len))
		kprintf("%s: _LSR (%u, %u) returned no buffer of %u bytes\n", who, off, len, len);
	else if (st == 0) {
		memcpy(dst, data->buffer.pointer, len);
		rc = 0;
	}
	ACPI_FREE(o);
	return rc;
}

static int lsx_write(acpi_handle dev, u32 off, const u8 *src, u32 len, const char *who)
{
	union acpi_object args[3], *o;
	int rc = -EIO;

	args[0].type = args[1].type = ACPI_TYPE_INTEGER;
	args[0].integer.value = off;
	args[1].integer.value = len;
	args[2].type = ACPI_TYPE_BUFFER;
	args[2].buffer.length = len;
	args[2].buffer.pointer = (u8 *)src;
	o = lsx_eval(dev, "_LSW", args, 3, who);
	if (!o)
		return -EIO;
	if (o->type != ACPI_TYPE_INTEGER)
		kprintf("%s: _LSW returned no integer\n", who);
	else if (o->integer.value)
		kprintf("%s: _LSW (%u, %u): status %#llx\n", who, off, len,
			(unsigned long long)o->integer.value);
	else
		rc = 0;
	ACPI_FREE(o);
	return rc;
}

const struct nvdimm_label_if nvdimm_lsx_if = {
	"_LSR", lsx_present, lsx_writable, lsx_info, lsx_read, lsx_write,
};
