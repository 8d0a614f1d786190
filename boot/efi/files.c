/*
 * Boot files for the kernel (struct boot_file, include/boot_info.h): the
 * known names below, read from the directory BOOTX64.EFI was loaded from
 * (\EFI\BOOT\ on a removable-media ESP) through the simple file system on
 * the image's device (UEFI 2.10 §9.1 loaded image, §13.4-13.5 file system
 * and file protocols), each into EfiLoaderData pages below 4 GiB, which the
 * kernel reserves. A missing file is normal and silent. Booted over the
 * network by the firmware's own PXE, the device has no file system: no
 * files then. iPXE puts one on the NIC that offers the images it fetched
 * (an iPXE script: imgfetch --name nbd.psk URL, then chain BOOTX64.EFI).
 */
#include "firmware.h"

#define BELOW_4G 0xFFFFFFFFULL
#define FILE_MAX_SIZE (1 * MiB)		/* keys and certificates are small */
#define PATH_MAX_CHARS 512

/* What the loader looks for. */
static const char *const known_files[] = {
	"nbd.psk",	/* NBD TLS pre-shared keys, psktool's format (net/nbd_keys.c) */
	"api.crt",	/* the HTTPS API's certificate chain, PEM (net/api_files.c) */
	"api.key",	/* ... its private key, PEM, unencrypted */
	"api.tokens",	/* ... its bearer tokens (include/api_tokens.h) */
};

/* Append src (ASCII, or UCS-2 when wide) to out[*n], bounded by max - 1. */
static bool append(CHAR16 *out, UINTN *n, UINTN max, const void *src, UINTN len, bool wide)
{
	for (UINTN i = 0; i < len; i++) {
		CHAR16 c = wide ? ((const CHAR16 *)src)[i] : (CHAR16)((const char *)src)[i];
		if (c == 0)
			break;
		if (*n + 1 >= max)
			return false;
		out[(*n)++] = c;
	}
	out[*n] = 0;
	return true;
}

/*
 * The image's directory with a trailing '\': its file path is the text of
 * the device path's media file path nodes (there may be several, joined by
 * '\'), cut after the last '\'. "\" when it has none.
 */
static bool image_dir(const EFI_DEVICE_PATH *dp, CHAR16 *out, UINTN max, UINTN *len)
{
	UINTN n = 0;

	out[0] = 0;
	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		UINTN node = DevicePathNodeLength(dp);
		if (node < 4)
			return false;	/* a malformed path: stop before looping forever */
		if (DevicePathType(dp) != MEDIA_DEVICE_PATH ||
		    DevicePathSubType(dp) != MEDIA_FILEPATH_DP || node < SIZE_OF_FILEPATH_DEVICE_PATH)
			continue;
		const FILEPATH_DEVICE_PATH *fp = (const FILEPATH_DEVICE_PATH *)dp;
		if (n > 0 && out[n - 1] != L'\\' && fp->PathName[0] != L'\\' &&
		    !append(out, &n, max, "\\", 1, false))
			return false;
		if (!append(out, &n, max, fp->PathName,
			    (node - SIZE_OF_FILEPATH_DEVICE_PATH) / sizeof(CHAR16), true))
			return false;
	}
	while (n > 0 && out[n - 1] != L'\\')
		n--;
	if (n == 0)
		out[n++] = L'\\';
	out[n] = 0;
	*len = n;
	return true;
}

static UINTN file_pages(u64 size)
{
	return EFI_SIZE_TO_PAGES(size ? size : 1);
}

/* The open file's size; EFI_UNSUPPORTED for a directory. */
static EFI_STATUS file_size(EFI_FILE_HANDLE fh, u64 *size)
{
	EFI_FILE_INFO *info = LibFileInfo(fh);

	if (!info)
		return EFI_DEVICE_ERROR;
	bool dir = info->Attribute & EFI_FILE_DIRECTORY;
	*size = info->FileSize;
	FreePool(info);
	return dir ? EFI_UNSUPPORTED : EFI_SUCCESS;
}

/* Read the open file into new pages below 4 GiB; f gets where. */
static EFI_STATUS read_file(EFI_FILE_HANDLE fh, struct boot_file *f)
{
	EFI_PHYSICAL_ADDRESS pa = BELOW_4G;
	u64 size;
	EFI_STATUS st = file_size(fh, &size);

	if (EFI_ERROR(st))
		return st;
	if (size > FILE_MAX_SIZE)
		return EFI_BAD_BUFFER_SIZE;
	st = BS->AllocatePages(AllocateMaxAddress, EfiLoaderData, file_pages(size), &pa);
	if (EFI_ERROR(st))
		return st;
	UINTN got = size;
	st = fh->Read(fh, &got, (void *)pa);
	if (!EFI_ERROR(st) && got != size)
		st = EFI_END_OF_FILE;	/* shorter than its directory entry said */
	if (EFI_ERROR(st)) {
		SetMem((void *)pa, file_pages(size) * PAGE_SIZE, 0);
		BS->FreePages(pa, file_pages(size));
		return st;
	}
	f->addr = pa;
	f->size = size;
	return EFI_SUCCESS;
}

/* One known file: into bi->files when present, one line when it is unusable. */
static void load_one(EFI_FILE_HANDLE root, const CHAR16 *dir, UINTN dir_len, const char *name,
		     struct boot_info *bi)
{
	CHAR16 path[PATH_MAX_CHARS];
	UINTN n = 0;
	EFI_FILE_HANDLE fh;

	if (!append(path, &n, PATH_MAX_CHARS, dir, dir_len, true) ||
	    !append(path, &n, PATH_MAX_CHARS, name, BOOT_FILE_NAME_MAX, false))
		return;
	EFI_STATUS st = root->Open(root, &fh, path, EFI_FILE_MODE_READ, 0);
	if (st == EFI_NOT_FOUND)
		return;
	if (EFI_ERROR(st)) {
		Print(L"pmemk: file %s: cannot open: %r; not handed over\n", path, st);
		return;
	}
	struct boot_file *f = &bi->files[bi->nr_files];
	st = read_file(fh, f);
	fh->Close(fh);
	if (EFI_ERROR(st)) {
		Print(L"pmemk: file %s: %r (at most %d bytes); not handed over\n", path, st,
		      (int)FILE_MAX_SIZE);
		return;
	}
	for (UINTN i = 0; name[i] && i + 1 < BOOT_FILE_NAME_MAX; i++)
		f->name[i] = name[i];
	bi->nr_files++;
	Print(L"pmemk: file %s (%ld bytes)\n", path, f->size);
}

void efi_files_load(EFI_HANDLE image, struct boot_info *bi)
{
	EFI_LOADED_IMAGE *li = NULL;
	CHAR16 dir[PATH_MAX_CHARS];
	UINTN dir_len;

	if (EFI_ERROR(BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li)) || !li)
		return;
	EFI_FILE_HANDLE root = LibOpenRoot(li->DeviceHandle);
	if (!root) {
		Print(L"pmemk: no file system on the boot device (network boot?): no boot files\n");
		return;
	}
	if (!image_dir(li->FilePath, dir, PATH_MAX_CHARS, &dir_len)) {
		Print(L"pmemk: the image's file path is unusable: no boot files\n");
		root->Close(root);
		return;
	}
	for (UINTN i = 0; i < ARRAY_SIZE(known_files) && bi->nr_files < BOOT_MAX_FILES; i++)
		load_one(root, dir, dir_len, known_files[i], bi);
	root->Close(root);
}

void efi_files_free(struct boot_info *bi)
{
	for (u32 i = 0; i < bi->nr_files; i++) {
		struct boot_file *f = &bi->files[i];
		SetMem((void *)f->addr, f->size, 0);	/* may hold a key */
		BS->FreePages(f->addr, file_pages(f->size));
	}
	bi->nr_files = 0;
}
