/*
 * Linux's copy of ACPICA includes this in utobject.c to tell Linux's leak
 * detector about one allocation; pmemk has no such detector.
 */
#ifndef PMEMK_ACPICA_KMEMLEAK_H
#define PMEMK_ACPICA_KMEMLEAK_H
#define kmemleak_not_leak(p) ((void)(p))
#endif
