/*
 * The POSIX calls newlib's x86_64-elf build expects (FACTS §9.2): console
 * I/O on fds 0-2, sbrk from the kernel heap, _exit to the machine's exit;
 * everything a kernel without files or processes cannot do fails with
 * ENOSYS (or the errno POSIX names for that case).
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>

#include "arch.h"
#include "heap.h"
#include "printk.h"
#include "spinlock.h"

#undef errno
extern int errno;

static u8 *heap_start, *heap_brk, *heap_end;

void heap_init(void *base, size_t size)
{
	heap_start = heap_brk = base;
	heap_end = heap_start + size;
}

u64 heap_used(void)
{
	return (size_t)(heap_brk - heap_start);
}

u64 heap_size(void)
{
	return (size_t)(heap_end - heap_start);
}

static int fail(int err)
{
	errno = err;
	return -1;
}

void *sbrk(ptrdiff_t incr);
void *sbrk(ptrdiff_t incr)
{
	if (!heap_start || incr > heap_end - heap_brk || incr < heap_start - heap_brk) {
		errno = ENOMEM;
		return (void *)-1;
	}
	u8 *old = heap_brk;
	heap_brk += incr;
	return old;
}

int write(int fd, const void *buf, size_t n);
int write(int fd, const void *buf, size_t n)
{
	if (fd != 1 && fd != 2)
		return fail(EBADF);
	arch_console_write(buf, n);
	return (int)n;
}

int read(int fd, void *buf, size_t n);
int read(int fd, void *buf, size_t n)
{
	if (fd != 0)
		return fail(EBADF);
	if (n == 0)
		return 0;
	*(char *)buf = (char)arch_console_getc();
	return 1;
}

int close(int fd);
int close(int fd)
{
	return fd <= 2 ? 0 : fail(EBADF);
}

int lseek(int fd, int off, int whence);
int lseek(int fd, int off, int whence)
{
	(void)off;
	(void)whence;
	return fail(fd <= 2 ? ESPIPE : EBADF);
}

int fstat(int fd, struct stat *st);
int fstat(int fd, struct stat *st)
{
	if (fd > 2)
		return fail(EBADF);
	st->st_mode = S_IFCHR;
	return 0;
}

int isatty(int fd);
int isatty(int fd)
{
	return fd <= 2 ? 1 : fail(EBADF);
}

void _exit(int status);
void _exit(int status)
{
	arch_exit(status);
}

int getpid(void);
int getpid(void)
{
	return 1;
}

/* raise()/abort() end here: there is no other process to signal. */
int kill(int pid, int sig);
int kill(int pid, int sig)
{
	if (pid == 1) {
		pr_emerg("kill: signal %d to the kernel (abort?)\n", sig);
		arch_exit(EXIT_PANIC);
	}
	return fail(ESRCH);
}

int open(const char *path, int flags, ...);
int open(const char *path, int flags, ...)
{
	(void)path;
	(void)flags;
	return fail(ENOSYS);	/* no file system */
}

int unlink(const char *path);
int unlink(const char *path)
{
	(void)path;
	return fail(ENOSYS);
}

int link(const char *a, const char *b);
int link(const char *a, const char *b)
{
	(void)a;
	(void)b;
	return fail(ENOSYS);
}

int stat(const char *path, struct stat *st);
int stat(const char *path, struct stat *st)
{
	(void)path;
	(void)st;
	return fail(ENOSYS);
}

int mkdir(const char *path, mode_t mode);
int mkdir(const char *path, mode_t mode)
{
	(void)path;
	(void)mode;
	return fail(ENOSYS);
}

int gettimeofday(struct timeval *tv, void *tz);
int gettimeofday(struct timeval *tv, void *tz)
{
	(void)tz;
	u64 ns = arch_cycles_to_ns(arch_cycles());	/* time since reset: no RTC read */
	tv->tv_sec = (time_t)(ns / 1000000000);
	tv->tv_usec = (suseconds_t)(ns / 1000 % 1000000);
	return 0;
}

clock_t times(struct tms *t);
clock_t times(struct tms *t)
{
	(void)t;
	return (clock_t)fail(ENOSYS);
}

int fork(void);
int fork(void)
{
	return fail(ENOSYS);
}

int execve(const char *path, char *const argv[], char *const envp[]);
int execve(const char *path, char *const argv[], char *const envp[])
{
	(void)path;
	(void)argv;
	(void)envp;
	return fail(ENOSYS);
}

int wait(int *status);
int wait(int *status)
{
	(void)status;
	return fail(ECHILD);
}

/*
 * newlib's malloc lock (its hooks, called around every malloc, free and
 * realloc; realloc takes it again inside): one recursive lock, so the heap
 * is safe from every CPU. Innermost in the lock order: any code may
 * allocate while holding its own locks.
 */
static struct rlock heap_lock = RLOCK_INIT("heap", LOCK_RANK_HEAP);

struct _reent;
void __malloc_lock(struct _reent *r);
void __malloc_unlock(struct _reent *r);

void __malloc_lock(struct _reent *r)
{
	(void)r;
	rlock_lock(&heap_lock);
}

void __malloc_unlock(struct _reent *r)
{
	(void)r;
	rlock_unlock(&heap_lock);
}
