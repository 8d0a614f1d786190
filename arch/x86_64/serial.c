/* 16550 UART on COM1, 115200 8N1, polled: the kernel console. */
#include "arch.h"
#include "x86.h"

#define COM1 0x3F8
#define UART_THR 0	/* transmit holding (DLAB=0) */
#define UART_RBR 0	/* receive buffer (DLAB=0) */
#define UART_DLL 0	/* divisor low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1	/* divisor high (DLAB=1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_DR 0x01	/* data ready */
#define LSR_THRE 0x20	/* transmit holding register empty */

void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);	/* no interrupts: we poll */
	outb(COM1 + UART_LCR, 0x80);	/* DLAB on */
	outb(COM1 + UART_DLL, 1);	/* 115200 = 115200 / 1 */
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, 0x03);	/* 8N1, DLAB off */
	outb(COM1 + UART_FCR, 0xC7);	/* FIFOs on, cleared, 14-byte trigger */
	outb(COM1 + UART_MCR, 0x03);	/* DTR, RTS */
}

static void serial_putc(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THRE))
		cpu_relax();
	outb(COM1 + UART_THR, (u8)c);
}

void arch_console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

int arch_console_getc(void)
{
	while (!(inb(COM1 + UART_LSR) & LSR_DR))
		cpu_relax();
	return inb(COM1 + UART_RBR);
}

int arch_console_trygetc(void)
{
	if (!(inb(COM1 + UART_LSR) & LSR_DR))
		return -1;
	return inb(COM1 + UART_RBR);
}
