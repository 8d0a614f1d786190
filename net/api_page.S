/*
 * The status page's bytes in .rodata (include/api_page.h): net/api_page.html
 * as it is in the tree, with its length. The Makefile makes this object
 * depend on the .html (gas reads .incbin files; -MMD does not list them).
 * The path is from the top of the tree, where make runs.
 */
	.section .rodata.api_page, "a"
	.globl api_page_html, api_page_html_len
	.type api_page_html, @object
api_page_html:
	.incbin "net/api_page.html"
.Lapi_page_html_end:
	.size api_page_html, . - api_page_html
	.byte 0				/* not counted: a C string too, if wanted */

	.balign 8
	.type api_page_html_len, @object
api_page_html_len:
	.quad .Lapi_page_html_end - api_page_html
	.size api_page_html_len, 8

	.section .note.GNU-stack, "", @progbits
