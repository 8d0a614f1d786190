/* The HTTPS API's status page, built into the image (include/api_page.h). */
	.section .rodata
	.globl api_page_html
	.type api_page_html, @object
api_page_html:
	.incbin "net/api_page.html"
api_page_end:
	.size api_page_html, api_page_end - api_page_html

	.balign 8
	.globl api_page_html_len
	.type api_page_html_len, @object
api_page_html_len:
	.quad api_page_end - api_page_html
	.size api_page_html_len, 8

	.section .note.GNU-stack, "", @progbits
