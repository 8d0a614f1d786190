/*
 * The loader's command line from the image's LoadOptions (UEFI 2.10 §9.1,
 * EFI_LOADED_IMAGE_PROTOCOL). Who fills them, and how:
 *   UEFI shell      UCS-2 command line as typed, image path first
 *   iPXE            UCS-2 "NAME ARGS", NAME the downloaded file
 *   Boot#### entry  OptionalData, arbitrary bytes: UCS-2 from efibootmgr -u,
 *                   8-bit text from efibootmgr without -u, and for the boot
 *                   options EDK2 creates itself a 16-byte GUID (binary)
 * Pure: no firmware calls.
 */
#include "loader.h"

static bool is_text(u32 c)
{
	return c == '\t' || (c >= 0x20 && c < 0x7f);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Decode text of `width` bytes per character (2: UCS-2 little-endian, 1:
 * 8-bit) up to the first NUL or the end into buf. Returns the length, or -1
 * if a character is not printable ASCII.
 */
static long decode(const u8 *p, u32 size, u32 width, char *buf, size_t buflen)
{
	u32 n = size / width;
	size_t len = 0;

	for (u32 i = 0; i < n; i++) {
		u32 c = width == 2 ? (u32)p[2 * i] | (u32)p[2 * i + 1] << 8 : p[i];
		if (c == 0)
			break;
		if (!is_text(c))
			return -1;
		if (len < buflen)
			buf[len] = (char)c;
		len++;
	}
	return (long)len;
}

static bool ends_with_efi(const char *s, size_t len)
{
	static const char ext[] = ".efi";

	if (len < 4)
		return false;
	for (size_t i = 0; i < 4; i++) {
		char c = s[len - 4 + i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != ext[i])
			return false;
	}
	return true;
}

/* Skip the first word of s[0..len) if it names an .efi file; return the rest's start. */
static size_t skip_image_path(const char *s, size_t len)
{
	size_t i = 0, start, end;

	while (i < len && is_space(s[i]))
		i++;
	start = i;
	if (i < len && s[i] == '"') {
		start = ++i;
		while (i < len && s[i] != '"')
			i++;
		end = i;
		if (i < len)
			i++;
	} else {
		while (i < len && !is_space(s[i]))
			i++;
		end = i;
	}
	return ends_with_efi(s + start, end - start) ? i : 0;
}

enum load_options_kind load_options_decode(const void *data, u32 size, char *out,
					   size_t outlen, bool *truncated)
{
	enum load_options_kind kind = LOAD_OPTIONS_UCS2;
	char buf[BOOT_CMDLINE_MAX * 2];
	long len = -1;

	out[0] = '\0';
	*truncated = false;
	if (!data || size == 0)
		return LOAD_OPTIONS_NONE;
	/* 8-bit text never passes as UCS-2: its high bytes are not zero. */
	if (size % 2 == 0)
		len = decode(data, size, 2, buf, sizeof(buf));
	if (len < 0) {
		kind = LOAD_OPTIONS_ASCII;
		len = decode(data, size, 1, buf, sizeof(buf));
	}
	if (len < 0)
		return LOAD_OPTIONS_BINARY;
	if (len == 0)
		return LOAD_OPTIONS_NONE;
	size_t n = MIN((size_t)len, sizeof(buf));
	size_t i = skip_image_path(buf, n);
	bool had_image = i > 0;

	while (i < n && is_space(buf[i]))
		i++;
	while (n > i && is_space(buf[n - 1]))
		n--;
	if (i == n)
		return had_image ? LOAD_OPTIONS_IMAGE_ONLY : LOAD_OPTIONS_NONE;
	*truncated = n - i > outlen - 1 || (size_t)len > sizeof(buf);
	n = MIN(n - i, outlen - 1);
	for (size_t k = 0; k < n; k++)
		out[k] = buf[i + k];
	out[n] = '\0';
	return kind;
}
