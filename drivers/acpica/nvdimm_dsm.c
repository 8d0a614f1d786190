/*
 * The NVDIMM devices in the ACPI namespace and their label _DSMs, through
 * ACPICA: the root device (_HID "ACPI0012", ACPI 6.4 §9.20.1), one child
 * per DIMM whose _ADR is the NFIT device handle (§9.20.2), and the Intel
 * NVDIMM DSM functions (FACTS §4.4, FACTS-2 §3.4):
 *   _DSM(UUID 4309AC30-0D11-11E4-9191-0800200C9A66, revision 1, function,
 *        Package { Buffer input })  ->  Buffer output
 *   4 Get Namespace Label Size: in -; out {u32 status, u32 label area size,
 *     u32 max transfer}
 *   5 Get Namespace Label Data: in {u32 offset, u32 length}; out {u32
 *     status, data[length]}, length <= max transfer
 *   6 Set Namespace Label Data: in {u32 offset, u32 length, data[length]};
 *     out {u32 status}, length <= max transfer
 * Status 0 is success (1 not supported, 2 no such device, 3 invalid input).
 * At boot (nvdimm_labels_load) each DIMM that implements 4 and 5 has its
 * label area read into memory for the nvdimm core (nd_label.h), which
 * writes it back through function 6; a DIMM whose _DSM lacks them but
 * has ACPI's _LSI/_LSR (nvdimm_lsx.c) is read and written through those,
 * as Linux chooses.
 */
#include <acpi/acpi.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acpica.h"
#include "acpica_priv.h"
#include "nd_ars.h"
#include "nd_label.h"
#include "nd_util.h"
#include "nvdimm.h"
#include "printk.h"
#include "shell.h"
#include "unaligned.h"

#define NVDIMM_INTEL_DSM_UUID "4309ac30-0d11-11e4-9191-0800200c9a66"
/* The root device's interface (ACPI 6.4 §9.20.7: ARS, clear error, injection). */
#define NVDIMM_ROOT_DSM_UUID "2f10e7a4-9e91-11e4-89d3-123b93f75cba"
#define NVDIMM_ROOT_ARS_FUNCS 0xeu /* functions 1-3: ARS capabilities, start, status */
#define NVDIMM_DSM_GET_LABEL_SIZE 4
#define NVDIMM_DSM_GET_LABEL_DATA 5
#define NVDIMM_DSM_SET_LABEL_DATA 6
/* More than any DIMM has (Linux: 128 KiB and up); a larger claim is refused. */
#define NVDIMM_LABEL_AREA_MAX (16u << 20)

struct find_dimm {
	u32 handle;
	acpi_handle found;
	acpi_handle root;
};

static acpi_status match_adr(acpi_handle dev, u32 level, void *ctx, void **ret)
{
	struct find_dimm *f = ctx;
	unsigned long long adr;
	union acpi_object *o;
	struct acpi_buffer out = { ACPI_ALLOCATE_BUFFER, NULL };

	(void)level;
	(void)ret;
	if (ACPI_FAILURE(acpi_evaluate_object(dev, "_ADR", NULL, &out)))
		return AE_OK;
	o = out.pointer;
	if (o && o->type == ACPI_TYPE_INTEGER) {
		adr = o->integer.value;
		if (adr == f->handle) {
			f->found = dev;
			ACPI_FREE(out.pointer);
			return AE_CTRL_TERMINATE;
		}
	}
	ACPI_FREE(out.pointer);
	return AE_OK;
}

static acpi_status found_root(acpi_handle dev, u32 level, void *ctx, void **ret)
{
	struct find_dimm *f = ctx;

	(void)level;
	(void)ret;
	f->root = dev;
	/* The DIMMs are the root device's children (ACPI 6.4 §9.20.2). */
	acpi_walk_namespace(ACPI_TYPE_DEVICE, dev, 1, match_adr, NULL, f, NULL);
	return f->found ? AE_CTRL_TERMINATE : AE_OK;
}

/* The DIMM device whose _ADR is `handle`, or NULL (quietly). */
acpi_handle nvdimm_acpi_lookup(u32 handle)
{
	struct find_dimm f = { handle, NULL, NULL };

	acpi_get_devices("ACPI0012", found_root, &f, NULL);
	return f.found;
}

/* The DIMM device whose _ADR is `handle`, or NULL after one line. */
static acpi_handle nvdimm_acpi_device(u32 handle, const char *who)
{
	struct find_dimm f = { handle, NULL, NULL };

	acpi_get_devices("ACPI0012", found_root, &f, NULL);
	if (!f.root)
		kprintf("%s: no NVDIMM root device (ACPI0012) in the ACPI namespace\n", who);
	else if (!f.found)
		kprintf("%s: no NVDIMM device with _ADR %#x under the root device\n", who, handle);
	return f.found;
}

/*
 * Evaluate _DSM function `fn` of the interface `uuid` with `in` (len
 * bytes) as the package's buffer. Returns the output buffer object (free
 * with ACPI_FREE), or NULL after one line (none when `who` is NULL).
 */
static union acpi_object *dsm_eval(acpi_handle dev, const char *uuid_str, u32 fn, const void *in,
				   u32 len, const char *who)
{
	u8 uuid[16];
	union acpi_object inbuf, args[4];
	struct acpi_object_list list = { 4, args };
	struct acpi_buffer out = { ACPI_ALLOCATE_BUFFER, NULL };
	union acpi_object *o;
	acpi_status st;

	acpica_parse_uuid(uuid_str, uuid);
	args[0].type = ACPI_TYPE_BUFFER;
	args[0].buffer.length = 16;
	args[0].buffer.pointer = uuid;
	args[1].type = ACPI_TYPE_INTEGER;
	args[1].integer.value = 1;
	args[2].type = ACPI_TYPE_INTEGER;
	args[2].integer.value = fn;
	inbuf.type = ACPI_TYPE_BUFFER;
	inbuf.buffer.length = len;
	inbuf.buffer.pointer = (u8 *)in;
	args[3].type = ACPI_TYPE_PACKAGE;
	args[3].package.count = 1;
	args[3].package.elements = &inbuf;
	st = acpi_evaluate_object(dev, "_DSM", &list, &out);
	if (ACPI_FAILURE(st)) {
		if (who)
			kprintf("%s: _DSM function %u: %s\n", who, fn, acpi_format_exception(st));
		return NULL;
	}
	o = out.pointer;
	if (!o || o->type != ACPI_TYPE_BUFFER) {
		if (who)
			kprintf("%s: _DSM function %u returned no buffer\n", who, fn);
		ACPI_FREE(out.pointer);
		return NULL;
	}
	return o;
}

/* dsm_eval of a DIMM device's Intel interface. */
union acpi_object *nvdimm_dsm_eval(acpi_handle dev, u32 fn, const void *in, u32 len,
					  const char *who)
{
	return dsm_eval(dev, NVDIMM_INTEL_DSM_UUID, fn, in, len, who);
}

/*
 * nvdimm_dsm_eval for functions >= 1, whose output starts with a u32
 * status: the buffer when the status is 0 and it holds at least `min_out`
 * bytes, else NULL after one line.
 */
static union acpi_object *nvdimm_dsm(acpi_handle dev, u32 fn, const void *in, u32 len, u32 min_out,
				     const char *who)
{
	union acpi_object *o = nvdimm_dsm_eval(dev, fn, in, len, who);

	if (!o)
		return NULL;
	if (o->buffer.length < 4) {
		kprintf("%s: _DSM function %u returned no status\n", who, fn);
		ACPI_FREE(o);
		return NULL;
	}
	if (get_le32(o->buffer.pointer) != 0) {
		kprintf("%s: _DSM function %u: status %#x\n", who, fn, get_le32(o->buffer.pointer));
		ACPI_FREE(o);
		return NULL;
	}
	if (o->buffer.length < min_out) {
		kprintf("%s: _DSM function %u returned %u bytes, want %u\n", who, fn,
			o->buffer.length, min_out);
		ACPI_FREE(o);
		return NULL;
	}
	return o;
}

/* Bit `fn` of the DIMM's _DSM function bitmap (function 0), quietly. */
bool nvdimm_dsm_supports(acpi_handle dev, u32 fn)
{
	union acpi_object *o = nvdimm_dsm_eval(dev, 0, NULL, 0, NULL);
	bool yes = o && fn / 8 < o->buffer.length && (o->buffer.pointer[fn / 8] >> (fn % 8) & 1);

	ACPI_FREE(o);
	return yes;
}

/* ---- the Intel label functions as a label interface (acpica_priv.h) ---- */

static bool dsm_label_present(acpi_handle dev)
{
	return nvdimm_dsm_supports(dev, NVDIMM_DSM_GET_LABEL_SIZE) &&
	       nvdimm_dsm_supports(dev, NVDIMM_DSM_GET_LABEL_DATA);
}

static bool dsm_label_writable(acpi_handle dev)
{
	return nvdimm_dsm_supports(dev, NVDIMM_DSM_SET_LABEL_DATA);
}

static int dsm_label_info(acpi_handle dev, u32 *size, u32 *max_xfer, const char *who)
{
	union acpi_object *o = nvdimm_dsm(dev, NVDIMM_DSM_GET_LABEL_SIZE, NULL, 0, 12, who);

	if (!o)
		return -EIO;
	*size = get_le32((u8 *)o->buffer.pointer + 4);
	*max_xfer = get_le32((u8 *)o->buffer.pointer + 8);
	ACPI_FREE(o);
	return 0;
}

static int dsm_label_read(acpi_handle dev, u32 off, u32 len, u8 *dst, const char *who)
{
	union acpi_object *o;
	u8 in[8];

	put_le32(in, off);
	put_le32(in + 4, len);
	o = nvdimm_dsm(dev, NVDIMM_DSM_GET_LABEL_DATA, in, sizeof(in), 4 + len, who);
	if (!o)
		return -EIO;
	memcpy(dst, (u8 *)o->buffer.pointer + 4, len);
	ACPI_FREE(o);
	return 0;
}

static int dsm_label_write_chunk(acpi_handle dev, u32 off, const u8 *src, u32 len,
				 const char *who)
{
	static u8 in[8 + NVDIMM_LABEL_XFER_MAX];
	union acpi_object *o;

	if (len > NVDIMM_LABEL_XFER_MAX)
		return -EINVAL;
	put_le32(in, off);
	put_le32(in + 4, len);
	memcpy(in + 8, src, len);
	o = nvdimm_dsm(dev, NVDIMM_DSM_SET_LABEL_DATA, in, 8 + len, 4, who);
	if (!o)
		return -EIO;
	ACPI_FREE(o);
	return 0;
}

static const struct nvdimm_label_if dsm_label_if = {
	"_DSM", dsm_label_present, dsm_label_writable, dsm_label_info, dsm_label_read,
	dsm_label_write_chunk,
};

/* The other DIMM _DSM families Linux 6.1 knows: HPE1, HPE2, MSFT, Hyper-V. */
static const char *const other_dsm_families[] = {
	"9002c334-acf3-4c0e-9642-a235f0d53bc6", "5008664b-b758-41a0-a03c-27c2f2d04f7e",
	"1ee68b36-d4bd-4a1a-9a16-4f8e53d46e05", "5746c5f2-a9a2-4264-ad0e-e4ddc9e09e80",
};

/* Does the DIMM implement the _DSM family `uuid` (function 0, bit 0)? Quietly. */
static bool dsm_family(acpi_handle dev, const char *uuid)
{
	union acpi_object *o = dsm_eval(dev, uuid, 0, NULL, 0, NULL);
	bool yes = o && o->buffer.length && (o->buffer.pointer[0] & 1);

	ACPI_FREE(o);
	return yes;
}

/*
 * The interface a DIMM's labels are read through, Linux 6.1's choice
 * (drivers/acpi/nfit/core.c, acpi_nfit_add_dimm): the Intel functions when
 * the DIMM's _DSM has them; _LSI/_LSR/_LSW only under another known
 * family (an Intel-family DIMM without 4/5 has no labels, nor has a DIMM
 * of no known family, such as QEMU's without label-size, whose _LSI
 * fails); NULL when none.
 */
static const struct nvdimm_label_if *label_if_of(acpi_handle dev)
{
	if (dsm_label_if.present(dev))
		return &dsm_label_if;
	if (dsm_family(dev, NVDIMM_INTEL_DSM_UUID))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(other_dsm_families); i++)
		if (dsm_family(dev, other_dsm_families[i]))
			return nvdimm_lsx_if.present(dev) ? &nvdimm_lsx_if : NULL;
	return NULL;
}

/*
 * Read a DIMM's whole label area through `lif`: *area (malloc'd), *size,
 * *max_xfer, *chunks. 0, or a negative errno after one line.
 */
static int read_label_area(acpi_handle dev, const struct nvdimm_label_if *lif, u8 **area,
			   u32 *size, u32 *max_xfer, u32 *chunks, const char *who)
{
	u32 off = 0;
	u8 *buf;

	if (lif->info(dev, size, max_xfer, who))
		return -EIO;
	if (!*size || *size > NVDIMM_LABEL_AREA_MAX || !*max_xfer) {
		kprintf("%s: label area of %u bytes with transfers of %u: refused\n", who, *size,
			*max_xfer);
		return -EINVAL;
	}
	buf = malloc(*size);
	if (!buf) {
		kprintf("%s: no memory for %u bytes of labels\n", who, *size);
		return -ENOMEM;
	}
	for (*chunks = 0; off < *size; (*chunks)++) {
		u32 len = MIN(*size - off, *max_xfer);

		if (lif->read(dev, off, len, buf + off, who)) {
			kprintf("%s: reading labels at offset %u failed\n", who, off);
			free(buf);
			return -EIO;
		}
		off += len;
	}
	*area = buf;
	return 0;
}

/* Each loaded DIMM's label interface and maximum transfer. */
static const struct nvdimm_label_if *dimm_label_if[ND_MAX_DIMMS];
static u32 dimm_max_xfer[ND_MAX_DIMMS];

/* nd_label_ops.write: chunks of at most the maximum transfer through the DIMM's interface. */
static int acpi_label_write(struct nvdimm *d, u32 off, const void *buf, u32 len)
{
	acpi_handle dev = nvdimm_acpi_device(d->handle, d->name);
	const struct nvdimm_label_if *lif = dimm_label_if[d->id];
	u32 xfer = MIN(dimm_max_xfer[d->id], (u32)NVDIMM_LABEL_XFER_MAX);

	if (!dev || !lif || !xfer)
		return -ENODEV;
	for (u32 done = 0; done < len;) {
		u32 n = MIN(len - done, xfer);

		if (lif->write(dev, off + done, (const u8 *)buf + done, n, d->name)) {
			kprintf("%s: writing labels at offset %u failed\n", d->name, off + done);
			return -EIO;
		}
		done += n;
	}
	return 0;
}

static const struct nd_label_ops acpi_label_ops = { acpi_label_write };

void nvdimm_labels_load(void)
{
	if (!nd_labels_enabled() || !nvdimm_count() || acpica_init())
		return;
	for (u32 i = 0; i < nvdimm_count(); i++) {
		struct nvdimm *d = nvdimm_get(i);
		acpi_handle dev = nvdimm_acpi_lookup(d->handle);
		const struct nvdimm_label_if *lif = dev ? label_if_of(dev) : NULL;
		u32 size, xfer, chunks;
		u8 *area;

		/* A DIMM without a label area (QEMU without label-size) is label-less: no line. */
		if (!lif || read_label_area(dev, lif, &area, &size, &xfer, &chunks, d->name))
			continue;
		d->lsa = area;
		d->lsa_size = size;
		dimm_label_if[d->id] = lif;
		dimm_max_xfer[d->id] = xfer;
		if (lif->writable(dev))
			d->label_ops = &acpi_label_ops;
		pr_info("nvdimm %s: label area %u bytes (%u reads of <= %u%s)%s%s\n", d->name, size,
			chunks, xfer, lif == &dsm_label_if ? "" : " with _LSR",
			d->label_ops ? "" : ", read-only (no ",
			d->label_ops ? "" : (lif == &dsm_label_if ? "_DSM function 6)" : "_LSW)"));
	}
}

/* A label area in hex, 32 bytes a line after their offset (read-labels -x). */
static void print_hex(const u8 *area, u32 size)
{
	static const char digits[] = "0123456789abcdef";
	char line[64 + 1];

	for (u32 off = 0; off < size; off += 32) {
		u32 n = 0;

		for (u32 i = off; i < off + 32 && i < size; i++) {
			line[n++] = digits[area[i] >> 4];
			line[n++] = digits[area[i] & 15];
		}
		line[n] = 0;
		kprintf("%06x:%s\n", off, line);
	}
}

static int cmd_read_labels(int argc, char **argv)
{
	const struct nvdimm_label_if *lif;
	struct nvdimm *d;
	bool hex = false, json = false;
	const char *name = NULL;
	u32 size, max_xfer, chunks;
	acpi_handle dev;
	u8 *area;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (shell_arg_flag(argv[i], "-x", NULL))
			hex = true;
		else if (shell_arg_flag(argv[i], "-j", "--json"))
			json = true;
		else if (name || argv[i][0] == '-')
			return shell_arg_unexpected(argv[0], argv[i]);
		else
			name = argv[i];
	}
	if (shell_arg_name(argv[0], "DIMM", name))
		return -EINVAL;
	d = nvdimm_find(name);
	if (!d) {
		kprintf("read-labels: no DIMM %s\n", name);
		return -ENODEV;
	}
	if (acpica_init())
		return -ENODEV;
	dev = nvdimm_acpi_device(d->handle, "read-labels");
	if (!dev)
		return -ENODEV;
	/* Neither interface found: ask the _DSM anyway, for its status. */
	lif = label_if_of(dev);
	if (!lif)
		lif = &dsm_label_if;
	rc = read_label_area(dev, lif, &area, &size, &max_xfer, &chunks, "read-labels");
	if (rc)
		return rc;
	if (json) {
		nd_lsa_json(area, size, d->name);
		free(area);
		return 0;
	}
	kprintf("%s: handle %#x label area %u bytes, max transfer %u, %u reads, fletcher64 %#llx%s\n",
		d->name, d->handle, size, max_xfer, chunks,
		(unsigned long long)nd_fletcher64(area, size),
		lif == &dsm_label_if ? "" : " (_LSI/_LSR)");
	if (hex)
		print_hex(area, size);
	free(area);
	return 0;
}
SHELL_COMMAND(
	SHELL_NVDIMM, "read-labels", cmd_read_labels, "read-labels nmemX [-x] [-j]",
	"read a DIMM's label area through its _DSM (ACPICA); -x dumps it in hex, -j prints ndctl's JSON");

/* acpi-nvdimms: the root device(s), each DIMM device, its handle and functions. */
static acpi_status list_dimm(acpi_handle dev, u32 level, void *ctx, void **ret)
{
	struct acpi_buffer name = { ACPI_ALLOCATE_BUFFER, NULL };
	struct acpi_buffer out = { ACPI_ALLOCATE_BUFFER, NULL };
	union acpi_object *o;
	const char *nmem = "-";
	u64 funcs = 0;

	(void)level;
	(void)ctx;
	(void)ret;
	if (ACPI_FAILURE(acpi_get_name(dev, ACPI_FULL_PATHNAME, &name)))
		return AE_OK;
	if (ACPI_FAILURE(acpi_evaluate_object(dev, "_ADR", NULL, &out)) || !out.pointer ||
	    ((union acpi_object *)out.pointer)->type != ACPI_TYPE_INTEGER) {
		kprintf("  %s: no integer _ADR\n", (char *)name.pointer);
		ACPI_FREE(out.pointer);
		ACPI_FREE(name.pointer);
		return AE_OK;
	}
	u64 adr = ((union acpi_object *)out.pointer)->integer.value;

	ACPI_FREE(out.pointer);
	for (u32 i = 0; i < nvdimm_count(); i++)
		if (nvdimm_get(i)->handle == adr)
			nmem = nvdimm_get(i)->name;
	/* Function 0: the bitmap of supported functions (bit n = function n). */
	o = nvdimm_dsm_eval(dev, 0, NULL, 0, "acpi-nvdimms");
	if (o) {
		for (u32 i = 0; i < o->buffer.length && i < 8; i++)
			funcs |= (u64)o->buffer.pointer[i] << (8 * i);
		ACPI_FREE(o);
	}
	kprintf("  %s: _ADR %#llx (%s), _DSM functions %#llx\n", (char *)name.pointer,
		(unsigned long long)adr, nmem, (unsigned long long)funcs);
	ACPI_FREE(name.pointer);
	return AE_OK;
}

static acpi_status list_root(acpi_handle dev, u32 level, void *ctx, void **ret)
{
	struct acpi_buffer name = { ACPI_ALLOCATE_BUFFER, NULL };

	(void)level;
	(void)ret;
	(*(u32 *)ctx)++;
	if (ACPI_SUCCESS(acpi_get_name(dev, ACPI_FULL_PATHNAME, &name))) {
		kprintf("%s: NVDIMM root device (ACPI0012)\n", (char *)name.pointer);
		ACPI_FREE(name.pointer);
	}
	acpi_walk_namespace(ACPI_TYPE_DEVICE, dev, 1, list_dimm, NULL, NULL, NULL);
	return AE_OK;
}

static int cmd_acpi_nvdimms(int argc, char **argv)
{
	u32 roots = 0;

	if (shell_args_max(argc, argv, 1))
		return -EINVAL;
	if (acpica_init())
		return -ENODEV;
	acpi_get_devices("ACPI0012", list_root, &roots, NULL);
	if (!roots) {
		kprintf("acpi-nvdimms: no NVDIMM root device (ACPI0012) in the ACPI namespace\n");
		return -ENODEV;
	}
	return 0;
}
SHELL_COMMAND(SHELL_NVDIMM, "acpi-nvdimms", cmd_acpi_nvdimms, "acpi-nvdimms",
	      "list the NVDIMM devices in the ACPI namespace: _ADR, DIMM, supported _DSM functions");

/* The NVDIMM root device and its root _DSM function bitmap. */
struct root_dsm {
	acpi_handle dev;
	u64 funcs;
};

static acpi_status root_functions(acpi_handle dev, u32 level, void *ctx, void **ret)
{
	union acpi_object *o = dsm_eval(dev, NVDIMM_ROOT_DSM_UUID, 0, NULL, 0, NULL);
	struct root_dsm *root = ctx;

	(void)level;
	(void)ret;
	root->dev = dev;
	for (u32 i = 0; o && i < o->buffer.length && i < 8; i++)
		root->funcs |= (u64)o->buffer.pointer[i] << (8 * i);
	ACPI_FREE(o);
	return AE_CTRL_TERMINATE;
}

static struct root_dsm ars_root;

/* nd_ars_ops.call: the root _DSM's function fn; the output copied, its length returned. */
static int root_dsm_call(u32 fn, const void *in, u32 in_len, void *out, u32 out_max)
{
	union acpi_object *o = dsm_eval(ars_root.dev, NVDIMM_ROOT_DSM_UUID, fn, in, in_len, "nfit ars");
	u32 n;

	if (!o)
		return -EIO;
	n = MIN(o->buffer.length, (u32)INT32_MAX);
	memcpy(out, o->buffer.pointer, MIN(n, out_max));
	ACPI_FREE(o);
	return (int)n;
}

static const struct nd_ars_ops root_dsm_ars = { root_dsm_call };

/* The bus the NFIT provider registered (its regions are the SPA ranges). */
static struct nd_bus *nfit_bus(void)
{
	for (u32 i = 0; i < nd_bus_count(); i++)
		if (!strcmp(nd_bus_get(i)->provider, "nfit"))
			return nd_bus_get(i);
	return NULL;
}

void nvdimm_ars_probe(void)
{
	struct nd_bus *bus = nfit_bus();

	if (!nvdimm_count() || !bus || acpica_init())
		return;
	acpi_get_devices("ACPI0012", root_functions, &ars_root, NULL);
	if ((ars_root.funcs & NVDIMM_ROOT_ARS_FUNCS) != NVDIMM_ROOT_ARS_FUNCS) {
		pr_info("nfit: the firmware offers no Address Range Scrub (root _DSM functions %#llx): bad blocks come from machine checks and injection\n",
			ars_root.funcs);
		return;
	}
	pr_info("nfit: the firmware offers Address Range Scrub (root _DSM functions %#llx%s%s)\n",
		ars_root.funcs, ars_root.funcs & (1u << ND_ARS_FN_CLEAR) ? ": clear error" : "",
		(ars_root.funcs & 0x380) == 0x380 ? ", error injection" : "");
	nd_ars_register(bus, &root_dsm_ars, ars_root.funcs);
	nd_ars_boot();
}
