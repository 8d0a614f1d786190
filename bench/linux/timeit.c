/*
 * timeit: run a command and print how long it took, in nanoseconds, for
 * tools/bench-ndctl's Linux guest (its busybox `date` has no %N and its
 * `time` gives hundredths of a second).
 *
 *   timeit LABEL CMD [ARG...]   run CMD, then print "timeit: LABEL ns=N
 *                               status=S" on stderr (so CMD's stdout can go
 *                               to /dev/null without it)
 *
 * N runs from just before fork to just after the child was reaped
 * (CLOCK_MONOTONIC): CMD's process start, its dynamic loading and all it
 * does. Built static with the host's gcc by tools/bench-ndctl; runs in the
 * guest's initramfs. Exits with CMD's status, 127 if it could not be run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: timeit LABEL CMD [ARG...]\n");
		return 2;
	}
	long long t0 = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("timeit: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("timeit: waitpid");
		return 127;
	}
	long long ns = now_ns() - t0;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	fprintf(stderr, "timeit: %s ns=%lld status=%d\n", argv[1], ns, code);
	return code;
}
