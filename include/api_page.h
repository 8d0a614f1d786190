/*
 * The HTTPS API's status page (net/api_page.html), built into the image
 * by net/api_page.S (.incbin): its bytes (no NUL after them) and length.
 */
#ifndef PMEMK_API_PAGE_H
#define PMEMK_API_PAGE_H

#include "types.h"

extern const char api_page_html[];
extern const size_t api_page_html_len;

#endif
