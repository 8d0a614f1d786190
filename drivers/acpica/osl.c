/*
 * pmemk's OS services layer for ACPICA (the acpi_os_* calls of ACPICA's
 * acpiosxf.h; ACPICA's own names are AcpiOs*, the copy pmemk builds from
 * spells them the Linux way). What each service is made of:
 *
 *  - memory: newlib's malloc over the kernel heap (lib/syscalls.c);
 *    ACPICA's object caches are its own (ACPI_USE_LOCAL_CACHE), and so is
 *    acpi_os_allocate_zeroed (utalloc.c, over acpi_os_allocate).
 *  - mapping: the direct map (direct_map_add, write-back, as pci_map_bar
 *    does); nothing is unmapped. pmemk has no uncached mapping yet; ACPI
 *    tables and QEMU's operation regions are RAM, and on hardware the
 *    firmware's MTRRs keep MMIO holes uncached.
 *  - locks, semaphores, mutexes: pmemk runs on one CPU with interrupts
 *    off and never preempts, so nothing can contend. Each is a counter
 *    that is checked: a wait on a semaphore with no unit, or a second
 *    acquire of a mutex, would deadlock on a real OS and is reported as
 *    AE_TIME (a bug in the AML's use of Mutex/Event, printed once each time).
 *  - port I/O, memory I/O, PCI configuration: arch_io_*, the direct map,
 *    arch_pci_cfg_* (mechanism #1, bus < 256, segment 0 only).
 *  - timers: the TSC (arch_cycles/arch_cycles_to_ns).
 *  - output: kprintf.
 *  - interrupts (the SCI), deferred work, the debugger: not provided;
 *    ACPICA is used without events (acpica.c).
 */
#include <acpi/acpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "direct_map.h"
#include "printk.h"
#include "acpica_glue.h"

acpi_status acpi_os_initialize(void)
{
	return AE_OK;
}

acpi_status acpi_os_terminate(void)
{
	return AE_OK;
}

acpi_physical_address acpi_os_get_root_pointer(void)
{
	return acpica_rsdp_pa();
}

acpi_status acpi_os_predefined_override(const struct acpi_predefined_names *init_val,
					acpi_string *new_val)
{
	(void)init_val;
	*new_val = NULL;
	return AE_OK;
}

acpi_status acpi_os_table_override(struct acpi_table_header *existing_table,
				   struct acpi_table_header **new_table)
{
	(void)existing_table;
	*new_table = NULL;
	return AE_OK;
}

acpi_status acpi_os_physical_table_override(struct acpi_table_header *existing_table,
					    acpi_physical_address *new_address,
					    u32 *new_table_length)
{
	(void)existing_table;
	*new_address = 0;
	*new_table_length = 0;
	return AE_OK;
}

/* Memory. */

/*
 * A zero-byte allocation is this one address, never handed to free():
 * ACPICA frees the data of a zero-length buffer argument twice (seen with
 * a _DSM whose Arg3 package holds an empty buffer: once when the method's
 * operands go, once with the parameter list in acpi_evaluate_object). On
 * Linux, where kmalloc(0) is ZERO_SIZE_PTR and kfree ignores it, that is
 * harmless; with newlib's malloc it corrupted the heap.
 */
static char zero_size_alloc[16] __aligned(16);

void *acpi_os_allocate(acpi_size size)
{
	if (!size)
		return zero_size_alloc;
	return malloc(size);
}

void acpi_os_free(void *memory)
{
	if (memory != (void *)zero_size_alloc)
		free(memory);
}

void *acpi_os_map_memory(acpi_physical_address where, acpi_size length)
{
	u64 start = where & ~(u64)(PAGE_SIZE - 1);
	u64 end = where + (length ? length : 1);

	if (end < where)
		return NULL;
	end = (end + PAGE_SIZE - 1) & ~(u64)(PAGE_SIZE - 1);
	if (!direct_map_covers(start, end - start) && direct_map_add(start, end - start) < 0) {
		kprintf("acpica: cannot map %#llx+%#llx\n", (unsigned long long)where,
			(unsigned long long)length);
		return NULL;
	}
	return phys_to_virt(where);
}

void acpi_os_unmap_memory(void *logical_address, acpi_size size)
{
	(void)logical_address;
	(void)size;
}

acpi_status acpi_os_get_physical_address(void *logical_address,
					 acpi_physical_address *physical_address)
{
	if (!logical_address || !physical_address)
		return AE_BAD_PARAMETER;
	*physical_address = virt_to_phys(logical_address);
	return AE_OK;
}

/*
 * Locks and semaphores: one CPU, no preemption, no interrupts taken (see
 * the top of the file). A semaphore is its unit count; a spinlock and a
 * mutex are a held flag.
 */
struct osl_sem {
	u32 units, max_units;
};

acpi_status acpi_os_create_lock(acpi_spinlock *out_handle)
{
	int *held = calloc(1, sizeof(*held));

	if (!held)
		return AE_NO_MEMORY;
	*out_handle = held;
	return AE_OK;
}

void acpi_os_delete_lock(acpi_spinlock handle)
{
	free(handle);
}

acpi_cpu_flags acpi_os_acquire_lock(acpi_spinlock handle)
{
	int *held = handle;

	if (*held)
		kprintf("acpica: spinlock %p taken twice (one CPU: a bug)\n", handle);
	*held = 1;
	return 0;
}

void acpi_os_release_lock(acpi_spinlock handle, acpi_cpu_flags flags)
{
	(void)flags;
	*(int *)handle = 0;
}

acpi_status acpi_os_create_semaphore(u32 max_units, u32 initial_units, acpi_semaphore *out_handle)
{
	struct osl_sem *s;

	if (!out_handle || initial_units > max_units)
		return AE_BAD_PARAMETER;
	s = calloc(1, sizeof(*s));
	if (!s)
		return AE_NO_MEMORY;
	s->units = initial_units;
	s->max_units = max_units;
	*out_handle = s;
	return AE_OK;
}

acpi_status acpi_os_delete_semaphore(acpi_semaphore handle)
{
	if (!handle)
		return AE_BAD_PARAMETER;
	free(handle);
	return AE_OK;
}

acpi_status acpi_os_wait_semaphore(acpi_semaphore handle, u32 units, u16 timeout)
{
	struct osl_sem *s = handle;

	if (!s)
		return AE_BAD_PARAMETER;
	if (s->units < units) {
		/* Nobody else can ever signal it: waiting would never end. */
		if (timeout != 0)
			kprintf("acpica: wait on a semaphore with %u of %u units: nothing can signal it on one CPU\n",
				s->units, units);
		return AE_TIME;
	}
	s->units -= units;
	return AE_OK;
}

acpi_status acpi_os_signal_semaphore(acpi_semaphore handle, u32 units)
{
	struct osl_sem *s = handle;

	if (!s)
		return AE_BAD_PARAMETER;
	if (s->units + units > s->max_units)
		return AE_LIMIT;
	s->units += units;
	return AE_OK;
}

/* Threads: one. */

acpi_thread_id acpi_os_get_thread_id(void)
{
	return 1;
}

acpi_status acpi_os_execute(acpi_execute_type type, acpi_osd_exec_callback function, void *context)
{
	/* Deferred work (notify handlers, GPE methods) runs at once: nothing else runs anyway. */
	(void)type;
	function(context);
	return AE_OK;
}

void acpi_os_wait_events_complete(void)
{
}

acpi_status acpi_os_install_interrupt_handler(u32 interrupt_number,
					      acpi_osd_handler service_routine, void *context)
{
	(void)service_routine;
	(void)context;
	kprintf("acpica: no interrupt handler for IRQ %u (pmemk polls; ACPI events are not used)\n",
		interrupt_number);
	return AE_NOT_IMPLEMENTED;
}

acpi_status acpi_os_remove_interrupt_handler(u32 interrupt_number, acpi_osd_handler service_routine)
{
	(void)interrupt_number;
	(void)service_routine;
	return AE_NOT_EXIST;
}

/* Time. */

u64 acpi_os_get_timer(void)
{
	/* 100-ns units (ACPI 6.4 §19.6.137, Timer). */
	return arch_cycles_to_ns(arch_cycles()) / 100;
}

void acpi_os_stall(u32 microseconds)
{
	u64 end = arch_cycles_to_ns(arch_cycles()) + (u64)microseconds * 1000;

	while (arch_cycles_to_ns(arch_cycles()) < end)
		__asm__ volatile("pause");
}

void acpi_os_sleep(u64 milliseconds)
{
	while (milliseconds--)
		acpi_os_stall(1000);
}

/* Port and memory I/O. */

acpi_status acpi_os_read_port(acpi_io_address address, u32 *value, u32 width)
{
	if (address > 0xFFFF || (width != 8 && width != 16 && width != 32))
		return AE_BAD_PARAMETER;
	*value = arch_io_read((u16)address, width / 8);
	return AE_OK;
}

acpi_status acpi_os_write_port(acpi_io_address address, u32 value, u32 width)
{
	if (address > 0xFFFF || (width != 8 && width != 16 && width != 32))
		return AE_BAD_PARAMETER;
	arch_io_write((u16)address, width / 8, value);
	return AE_OK;
}

acpi_status acpi_os_read_memory(acpi_physical_address address, u64 *value, u32 width)
{
	void *p = acpi_os_map_memory(address, width / 8);

	if (!p)
		return AE_NOT_EXIST;
	switch (width) {
	case 8: *value = *(volatile u8 *)p; break;
	case 16: *value = *(volatile u16 *)p; break;
	case 32: *value = *(volatile u32 *)p; break;
	case 64: *value = *(volatile u64 *)p; break;
	default: return AE_BAD_PARAMETER;
	}
	return AE_OK;
}

acpi_status acpi_os_write_memory(acpi_physical_address address, u64 value, u32 width)
{
	void *p = acpi_os_map_memory(address, width / 8);

	if (!p)
		return AE_NOT_EXIST;
	switch (width) {
	case 8: *(volatile u8 *)p = (u8)value; break;
	case 16: *(volatile u16 *)p = (u16)value; break;
	case 32: *(volatile u32 *)p = (u32)value; break;
	case 64: *(volatile u64 *)p = value; break;
	default: return AE_BAD_PARAMETER;
	}
	return AE_OK;
}

/* PCI configuration (mechanism #1: segment 0, registers below 256). */

acpi_status acpi_os_read_pci_configuration(struct acpi_pci_id *pci_id, u32 reg, u64 *value, u32 width)
{
	if (pci_id->segment || pci_id->bus > 255 || pci_id->device > 31 || pci_id->function > 7 ||
	    reg > 255 || (width != 8 && width != 16 && width != 32) || reg % (width / 8) ||
	    !arch_pci_cfg_present())
		return AE_BAD_PARAMETER;
	*value = arch_pci_cfg_read((u8)pci_id->bus, (u8)pci_id->device, (u8)pci_id->function,
				   (u8)reg, width / 8);
	return AE_OK;
}

acpi_status acpi_os_write_pci_configuration(struct acpi_pci_id *pci_id, u32 reg, u64 value, u32 width)
{
	if (pci_id->segment || pci_id->bus > 255 || pci_id->device > 31 || pci_id->function > 7 ||
	    reg > 255 || (width != 8 && width != 16 && width != 32) || reg % (width / 8) ||
	    !arch_pci_cfg_present())
		return AE_BAD_PARAMETER;
	arch_pci_cfg_write((u8)pci_id->bus, (u8)pci_id->device, (u8)pci_id->function, (u8)reg,
			   width / 8, (u32)value);
	return AE_OK;
}

/* Output. */

void acpi_os_vprintf(const char *format, va_list args)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), format, args);
	kprintf("%s", buf);
}

void ACPI_INTERNAL_VAR_XFACE acpi_os_printf(const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	acpi_os_vprintf(format, ap);
	va_end(ap);
}

void acpi_os_redirect_output(void *destination)
{
	(void)destination;
}

acpi_status acpi_os_signal(u32 function, void *info)
{
	if (function == ACPI_SIGNAL_FATAL) {
		struct acpi_signal_fatal_info *f = info;

		kprintf("acpica: AML Fatal opcode: type %#x code %#x argument %#x (ignored)\n",
			f->type, f->code, f->argument);
	}
	return AE_OK;
}

acpi_status acpi_os_enter_sleep(u8 sleep_state, u32 rega_value, u32 regb_value)
{
	(void)sleep_state;
	(void)rega_value;
	(void)regb_value;
	return AE_OK;	/* go on: ACPICA writes PM1a/PM1b itself */
}
