/* Port I/O on behalf of portable code (arch.h: arch_io_read/arch_io_write). */
#include "arch.h"
#include "x86.h"

u32 arch_io_read(u16 port, unsigned int width)
{
	switch (width) {
	case 1: return inb(port);
	case 2: return inw(port);
	default: return inl(port);
	}
}

void arch_io_write(u16 port, unsigned int width, u32 val)
{
	switch (width) {
	case 1: outb(port, (u8)val); break;
	case 2: outw(port, (u16)val); break;
	default: outl(port, val); break;
	}
}
