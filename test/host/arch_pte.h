/*
 * The host fake's part of the page-table entry contract (include/arch.h
 * includes this file before its prototypes). Nothing to inline: the fake's
 * functions are out of line in pte_host.c, where they check every call and
 * abort with a message on misuse; arch.h's prototypes declare them.
 */
#ifndef PMEMK_ARCH_PTE_H
#define PMEMK_ARCH_PTE_H
#endif
