/* IDT and the exception report: vector, error code, registers, CR2, stack trace; then stop. */
#include "arch.h"
#include "kallsyms.h"
#include "printk.h"
#include "trap.h"
#include "x86.h"

struct idt_entry {
	u16 off0;
	u16 sel;
	u8 ist;
	u8 type;
	u16 off1;
	u32 off2;
	u32 zero;
} __packed;

extern const u64 trap_entries[32];
extern char kernel_stack_bottom[], kernel_stack_top[];
extern char _text[], _etext[];

static struct idt_entry idt[256] __aligned(16);

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow",
	"bound range exceeded", "invalid opcode", "device not available",
	"double fault", "coprocessor segment overrun", "invalid TSS",
	"segment not present", "stack-segment fault", "general protection fault",
	"page fault", "reserved", "x87 floating-point error", "alignment check",
	"machine check", "SIMD floating-point error", "virtualization exception",
	"control protection", "reserved", "reserved", "reserved", "reserved",
	"reserved", "reserved", "hypervisor injection", "VMM communication",
	"security exception", "reserved",
};

void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed ptr = { sizeof(idt) - 1, (u64)idt };

	__asm__ volatile("lidt %0" : : "m"(ptr));
}

void idt_set_gate(u8 vector, u64 handler)
{
	idt[vector] = (struct idt_entry){
		.off0 = (u16)handler, .sel = 0x08, .ist = 0,
		.type = 0x8E,	/* present, DPL 0, 64-bit interrupt gate */
		.off1 = (u16)(handler >> 16), .off2 = (u32)(handler >> 32),
	};
}

void idt_init(void)
{
	for (int v = 0; v < 32; v++) {
		u64 off = trap_entries[v];
		idt[v] = (struct idt_entry){
			.off0 = (u16)off, .sel = 0x08,
			.ist = v == 8 || v == 2 || v == 18 ? 1 : 0,	/* #DF, NMI, #MC */
			.type = 0x8E,	/* present, DPL 0, 64-bit interrupt gate */
			.off1 = (u16)(off >> 16), .off2 = (u32)(off >> 32),
		};
	}
	idt_load();
}

static bool on_kernel_stack(u64 addr)
{
	return addr >= (u64)kernel_stack_bottom && addr + 16 <= (u64)kernel_stack_top;
}

static void print_address(u64 addr)
{
	u64 off;
	const char *name = kallsyms_lookup(addr, &off);

	if (name)
		pr_emerg(" [<%016llx>] %s+%#llx\n", addr, name, off);
	else
		pr_emerg(" [<%016llx>]\n", addr);
}

/* Follow the frame-pointer chain (the kernel is built with frame pointers). */
static void print_stack_trace(u64 rip, u64 rbp)
{
	pr_emerg("Call Trace:\n");
	print_address(rip);
	for (int depth = 0; depth < 32 && on_kernel_stack(rbp); depth++) {
		const u64 *frame = (const u64 *)rbp;
		u64 ret = frame[1];
		if (ret < (u64)_text || ret >= (u64)_etext)
			break;
		print_address(ret);
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

void dump_stack(void)
{
	u64 rbp = (u64)__builtin_frame_address(0);

	print_stack_trace((u64)__builtin_return_address(0), *(const u64 *)rbp);
}

/*
 * A fault on an instruction the exception table lists resumes at its
 * fixup: a machine-check-safe copy's (a page fault there is a bug worth
 * one line) or wrmsr_safe's (a #GP is its answer).
 */
static bool fixed_up(struct trap_frame *f, const char *name)
{
	u64 fixup = f->vector == 13 || f->vector == 14 ? ex_table_fixup(f->rip) : 0;

	if (!fixup)
		return false;
	if (f->vector == 14)
		pr_err("%s at %#llx (address %#llx) in a machine-check-safe copy: it fails\n", name,
		       f->rip, read_cr2());
	f->rip = fixup;
	return true;
}

void trap_handler(struct trap_frame *f);
void trap_handler(struct trap_frame *f)
{
	static bool in_trap;
	const char *name = f->vector < 32 ? exception_names[f->vector] : "interrupt";

	/* Machine checks: listed and survived, or one decoded line and stopped (mce.c). */
	if (f->vector == 18 && mce_handle(f))
		return;
	if (fixed_up(f, name))
		return;

	if (in_trap) {
		/* Faulted while reporting: say the least and stop. */
		pr_emerg("exception %llu at RIP 0x%016llx while reporting an exception\n",
			 f->vector, f->rip);
		arch_exit(EXIT_EXCEPTION);
	}
	in_trap = true;

	pr_emerg("exception %llu (%s), error code %#llx\n", f->vector, name, f->error);
	pr_emerg("RIP: 0x%016llx  CS: %#llx  RFLAGS: %#llx\n", f->rip, f->cs, f->rflags);
	pr_emerg("RSP: 0x%016llx  CR2: 0x%016llx  CR3: 0x%016llx\n", f->rsp, read_cr2(),
		 read_cr3());
	pr_emerg("RAX: %016llx RBX: %016llx RCX: %016llx RDX: %016llx\n", f->rax, f->rbx, f->rcx,
		 f->rdx);
	pr_emerg("RSI: %016llx RDI: %016llx RBP: %016llx R8:  %016llx\n", f->rsi, f->rdi, f->rbp,
		 f->r8);
	if (f->vector == 14)
		pr_emerg("page fault: %s access to %#llx in %s mode, %s\n",
			 f->error & 2 ? "write" : (f->error & 16 ? "instruction" : "read"),
			 read_cr2(), f->error & 4 ? "user" : "kernel",
			 f->error & 1 ? "protection violation" : "page not present");
	print_stack_trace(f->rip, f->rbp);
	pr_emerg("kernel stopped after exception %llu\n", f->vector);
	arch_exit(EXIT_EXCEPTION);
}
