/*
 * The HTTPS management API's status page (net/api_page.html), carried in
 * the kernel image as bytes (net/api_page.S, .rodata): what GET / answers,
 * without a token (the page holds no state; it fetches everything it shows
 * from the JSON API with the bearer token). One self-contained HTML file:
 * inline CSS and script, no external URL; it needs a Content-Security-Policy
 * that allows inline script and style and fetches to its own origin
 * (test/api/mock_api.py sends the one it was tested under).
 */
#ifndef PMEMK_API_PAGE_H
#define PMEMK_API_PAGE_H

#include "types.h"

/* The page's bytes (UTF-8 text/html), api_page_html_len of them; a NUL follows, not counted. */
extern const u8 api_page_html[];
extern const size_t api_page_html_len;

#endif
