/*
 * ACPICA in pmemk: bring the interpreter up on first use, and the
 * `acpi-eval` shell command. pmemk's own table walk (drivers/acpi_nfit)
 * stays the source of the table list and of the NFIT; ACPICA is here for
 * the AML: the DSDT and SSDTs are loaded into its namespace so that
 * methods (_DSM of the NVDIMM devices, \_S5, ...) can be evaluated.
 *
 * Bring-up (acpica_init): subsystem, table manager over the RSDP pmemk
 * found (osl.c), the AML tables loaded (this installs the default
 * SystemMemory/SystemIO/PCI_Config operation-region handlers), the
 * subsystem enabled without the switch to ACPI mode, without events (no
 * SCI: pmemk takes no interrupts) and without the global-lock handler,
 * then the objects initialised (_INI, _STA). It is not done at boot: the
 * first command that needs AML does it, so a boot that never asks pays
 * nothing and a firmware whose AML ACPICA rejects costs only that command.
 */
#include <acpi/acpi.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpica_priv.h"
#include "acpica_glue.h"
#include "nd_util.h"
#include "printk.h"
#include "shell.h"

static int acpica_state;	/* 0: not tried, 1: up, -1: failed */

int acpica_init(void)
{
	acpi_status st;
	const char *step;

	if (acpica_state)
		return acpica_state > 0 ? 0 : -ENODEV;
	acpica_state = -1;
	if (!acpica_rsdp_pa()) {
		kprintf("acpica: no ACPI tables (pmemk found no RSDP)\n");
		return -ENODEV;
	}
	step = "acpi_initialize_subsystem";
	st = acpi_initialize_subsystem();
	if (ACPI_SUCCESS(st)) {
		step = "acpi_initialize_tables";
		st = acpi_initialize_tables(NULL, 32, FALSE);
	}
	if (ACPI_SUCCESS(st)) {
		step = "acpi_load_tables";
		st = acpi_load_tables();
	}
	if (ACPI_SUCCESS(st)) {
		step = "acpi_enable_subsystem";
		st = acpi_enable_subsystem(ACPI_NO_ACPI_ENABLE | ACPI_NO_EVENT_INIT |
					   ACPI_NO_HANDLER_INIT);
	}
	if (ACPI_SUCCESS(st)) {
		step = "acpi_initialize_objects";
		st = acpi_initialize_objects(ACPI_FULL_INITIALIZATION);
	}
	if (ACPI_FAILURE(st)) {
		kprintf("acpica: %s: %s; AML is not available\n", step, acpi_format_exception(st));
		return -ENODEV;
	}
	acpica_state = 1;
	pr_info("acpica: ACPICA %08x up, AML tables loaded\n", ACPI_CA_VERSION);
	return 0;
}

/* ---- printing results ---- */

static void print_indent(int depth)
{
	for (int i = 0; i < depth; i++)
		kprintf("  ");
}

static void print_bytes(const u8 *p, u32 n, int depth)
{
	for (u32 i = 0; i < n; i++) {
		if (i % 32 == 0) {
			if (i)
				kprintf("\n");
			print_indent(depth + 1);
		}
		kprintf("%02x", p[i]);
	}
	if (n)
		kprintf("\n");
}

/* Print an evaluation result, packages recursively, at indent depth. */
static void acpica_print_object(const union acpi_object *o, int depth)
{
	print_indent(depth);
	switch (o->type) {
	case ACPI_TYPE_INTEGER:
		kprintf("Integer %#llx\n", (unsigned long long)o->integer.value);
		break;
	case ACPI_TYPE_STRING:
		kprintf("String \"%.*s\"\n", (int)o->string.length, o->string.pointer);
		break;
	case ACPI_TYPE_BUFFER:
		kprintf("Buffer (%u bytes)\n", o->buffer.length);
		print_bytes(o->buffer.pointer, o->buffer.length, depth);
		break;
	case ACPI_TYPE_PACKAGE:
		kprintf("Package (%u elements)\n", o->package.count);
		for (u32 i = 0; i < o->package.count; i++)
			acpica_print_object(&o->package.elements[i], depth + 1);
		break;
	case ACPI_TYPE_LOCAL_REFERENCE: {
		struct acpi_buffer path = { ACPI_ALLOCATE_BUFFER, NULL };

		if (o->reference.handle &&
		    ACPI_SUCCESS(acpi_get_name(o->reference.handle, ACPI_FULL_PATHNAME, &path))) {
			kprintf("Reference %s\n", (char *)path.pointer);
			ACPI_FREE(path.pointer);
		} else {
			kprintf("Reference (type %#x)\n", o->reference.actual_type);
		}
		break;
	}
	default:
		kprintf("Object of type %#x\n", o->type);
		break;
	}
}

/* ---- arguments ---- */

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex digits (an even number) into a new buffer; -EINVAL when not hex. */
static int parse_hex(const char *s, u8 **out, u32 *len)
{
	size_t n = strlen(s);
	u8 *b;

	if (n % 2)
		return -EINVAL;
	b = malloc(n / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_nibble(s[2 * i]), lo = hex_nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(b);
			return -EINVAL;
		}
		b[i] = (u8)(hi << 4 | lo);
	}
	*out = b;
	*len = (u32)(n / 2);
	return 0;
}

/*
 * A UUID string "aabbccdd-eeff-gghh-iijj-kkllmmnnoopp" into the 16 bytes
 * the ASL ToUUID macro makes (ACPI 6.4 §19.6.142): the first three fields
 * little-endian, the last two in string order.
 */
int acpica_parse_uuid(const char *s, u8 out[16])
{
	static const u8 order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	u8 raw[16];

	if (uuid_parse(s, raw))	/* string order (lib/nd_util.c, host-tested) */
		return -EINVAL;
	for (int i = 0; i < 16; i++)
		out[order[i]] = raw[i];
	return 0;
}

/*
 * One argument of acpi-eval: a number (integer), s:TEXT (string),
 * b:HEX (buffer), u:UUID (16-byte buffer, ToUUID order), or p:E,E,...
 * (a package of such elements, not nested). Memory it takes is freed by
 * free_arg.
 */
static int parse_arg(const char *s, union acpi_object *o, bool in_package);

static void free_arg(union acpi_object *o)
{
	if (o->type == ACPI_TYPE_BUFFER)
		free(o->buffer.pointer);
	else if (o->type == ACPI_TYPE_STRING)
		free(o->string.pointer);
	else if (o->type == ACPI_TYPE_PACKAGE) {
		for (u32 i = 0; i < o->package.count; i++)
			free_arg(&o->package.elements[i]);
		free(o->package.elements);
	}
	o->type = ACPI_TYPE_ANY;
}

/* p:E,E,...: each element an argument of its own, not a package. */
static int parse_package(const char *list, union acpi_object *o)
{
	char *copy = strdup(list), *tok, *save = NULL;
	u32 n = 0;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	o->type = ACPI_TYPE_PACKAGE;
	o->package.elements = calloc(strlen(list) + 3, sizeof(union acpi_object));
	if (!o->package.elements) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		rc = parse_arg(tok, &o->package.elements[n], true);
		if (!rc)
			n++;
	}
	o->package.count = n;
	free(copy);
	return rc;
}

static int parse_arg(const char *s, union acpi_object *o, bool in_package)
{
	memset(o, 0, sizeof(*o));
	o->type = ACPI_TYPE_ANY;
	if (!strncmp(s, "s:", 2)) {
		o->type = ACPI_TYPE_STRING;
		o->string.pointer = strdup(s + 2);
		o->string.length = (u32)strlen(s + 2);
		return o->string.pointer ? 0 : -ENOMEM;
	}
	if (!strncmp(s, "b:", 2)) {
		u8 *b;
		u32 n;
		int rc = parse_hex(s + 2, &b, &n);

		if (rc)
			return rc;
		o->type = ACPI_TYPE_BUFFER;
		o->buffer.pointer = b;
		o->buffer.length = n;
		return 0;
	}
	if (!strncmp(s, "u:", 2)) {
		u8 *b = malloc(16);

		if (!b)
			return -ENOMEM;
		if (acpica_parse_uuid(s + 2, b)) {
			free(b);
			return -EINVAL;
		}
		o->type = ACPI_TYPE_BUFFER;
		o->buffer.pointer = b;
		o->buffer.length = 16;
		return 0;
	}
	if (!strncmp(s, "p:", 2))
		return in_package ? -EINVAL : parse_package(s + 2, o);
	u64 v;

	if (shell_parse_u64(s, &v))
		return -EINVAL;
	o->type = ACPI_TYPE_INTEGER;
	o->integer.value = v;
	return 0;
}

#define EVAL_MAX_ARGS 7	/* Arg0-Arg6 (ACPI 6.4 §19.3.5.3) */

static int cmd_acpi_eval(int argc, char **argv)
{
	union acpi_object args[EVAL_MAX_ARGS];
	struct acpi_object_list list = { 0, args };
	struct acpi_buffer result = { ACPI_ALLOCATE_BUFFER, NULL };
	acpi_status st;
	int rc = 0;

	if (shell_arg_name(argv[0], "path", shell_arg(argc, argv, 1)))
		return -EINVAL;
	if (argc - 2 > EVAL_MAX_ARGS)
		return shell_arg_error(argv[0], "at most %d arguments", EVAL_MAX_ARGS);
	for (int i = 2; i < argc; i++) {
		rc = parse_arg(argv[i], &args[i - 2], false);
		list.count++;
		if (rc) {
			shell_arg_error(
				argv[0],
				"argument %d '%s': not a number, s:TEXT, b:HEX, u:UUID or p:E,E,...",
				i - 1, argv[i]);
			goto out;
		}
	}
	rc = acpica_init();
	if (rc) {
		kprintf("acpi-eval: ACPICA is not available\n");
		goto out;
	}
	/* From the root; the leading backslash may be left out (GRUB's command line eats it). */
	char path[128];

	snprintf(path, sizeof(path), "%s%s", argv[1][0] == '\\' ? "" : "\\", argv[1]);
	st = acpi_evaluate_object(NULL, path, list.count ? &list : NULL, &result);
	if (ACPI_FAILURE(st)) {
		kprintf("acpi-eval: %s: %s\n", path, acpi_format_exception(st));
		rc = -EIO;
		goto out;
	}
	if (!result.length || !result.pointer)
		kprintf("%s: no result\n", path);
	else
		acpica_print_object(result.pointer, 0);
	ACPI_FREE(result.pointer);
out:
	for (u32 i = 0; i < list.count; i++)
		free_arg(&args[i]);
	return rc;
}
SHELL_COMMAND(SHELL_SYSTEM, "acpi-eval", cmd_acpi_eval, "acpi-eval PATH [ARG...]",
	      "evaluate an ACPI object (PATH from the root, e.g. _S5) with ACPICA; ARG: number, s:TEXT, b:HEX, u:UUID, p:E,E,...");
