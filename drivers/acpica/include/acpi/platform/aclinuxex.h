/*
 * pmemk's stand-in for Linux's aclinuxex.h (see aclinux.h beside it):
 * acenvex.h includes it after ACPICA's own headers; pmemk needs nothing there.
 */
#ifndef __ACLINUXEX_H__
#define __ACLINUXEX_H__
#endif
