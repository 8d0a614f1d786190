/*
 * What the machine layer reports up to the nvdimm core when it meets
 * poisoned memory (the #MC handler, arch/x86_64/mce.c; the host tests'
 * injector): a base-level contract, as arch.h is, which nvdimm/media_error.c
 * implements and media_error.h builds on. The arch includes nothing of the
 * device model; it only says "this physical range is poisoned".
 */
#ifndef PMEMK_MEDIA_POISON_H
#define PMEMK_MEDIA_POISON_H

#include "types.h"

enum media_error_source {
	MEDIA_ERR_MCE_SYNC, /* a machine check during a read (action required) */
	MEDIA_ERR_MCE_ASYNC, /* a machine check found by a scrub (action optional) */
	MEDIA_ERR_INJECT, /* inject-error with the notification (as ndctl's default) */
};

/*
 * [phys, phys + len) is poisoned: queue it for its region's list. Callable
 * from #MC context (lock-free, prints nothing). False when the range lies
 * in no pmem region (the caller then treats the error as fatal).
 */
bool media_error_notify(u64 phys, u64 len, enum media_error_source src);

#endif
