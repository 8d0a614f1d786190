/*
 * The HTTPS API's boot files and parameters (include/api_files.h): the
 * certificate and key parsed into one struct tls_cert, the tokens into a
 * table, both secret files wiped right after, and the decision, failing
 * closed, whether the API may serve. Portable: no lwIP.
 */
#include <errno.h>
#include <string.h>

#include "api_files.h"
#include "boot_files.h"
#include "params.h"
#include "printk.h"
#include "tls_server.h"

#define CRT_FILE "api.crt"
#define KEY_FILE "api.key"
#define TOKENS_FILE "api.tokens"
#define OFF ": the HTTPS API is off\n"

static u64 api_port_number = 443;
KERNEL_PARAM_U64("api.port", api_port_number, 1, 65535, "TCP port of the HTTPS management API (default 443)");
u64 api_max_clients = 8, api_max_per_source = 4, api_request_secs = 10, api_idle_secs = 30;
KERNEL_PARAM_U64("api.max-clients", api_max_clients, 1, API_MAX_CONNS,
		 "HTTPS API connections at once (default 8)");
KERNEL_PARAM_U64("api.max-per-source", api_max_per_source, 1, API_MAX_CONNS,
		 "HTTPS API connections at once from one address (default 4)");
KERNEL_PARAM_U64("api.request-timeout", api_request_secs, 1, 3600,
		 "seconds for the TLS handshake and each whole request to arrive (default 10)");
KERNEL_PARAM_U64("api.idle-timeout", api_idle_secs, 1, 3600,
		 "seconds a kept-alive connection may wait for its next request (default 30)");
/* api.* fails closed: the first unknown or refused one, if any (lib/params.c sets it). */
static const char *api_bad_param;
KERNEL_PARAM_FAMILY("api.", api_bad_param);

static struct tls_cert *cert;
static struct api_tokens tokens;
static bool enabled;
static int result = 1;	/* api_files_load's; 1: not called yet */

/* Parse api.crt with api.key (both there): 0, or the refusal printed. */
static int load_cert(const struct boot_file *crt, const struct boot_file *key)
{
	char why[160], summary[200];
	int err = tls_cert_parse((const char *)crt->data, crt->size, (const char *)key->data,
				 key->size, &cert, why, sizeof(why));

	if (err) {
		pr_err("api: %s with %s refused: %s" OFF, CRT_FILE, KEY_FILE, why);
		return err;
	}
	tls_cert_summary(cert, summary, sizeof(summary));
	pr_info("api: certificate %s\n", summary);
	return 0;
}

/* The parser's reasons, one printed line each ("line 3: role is not read or admin"). */
static void print_reasons(const char *why, int skipped)
{
	int printed = 0;

	for (const char *nl; (nl = strchr(why, '\n')); why = nl + 1, printed++)
		pr_err("api: %s %.*s; skipped\n", TOKENS_FILE, (int)(nl - why), why);
	if (skipped > printed)
		pr_err("api: %s: %d more bad lines skipped\n", TOKENS_FILE, skipped - printed);
}

/* Parse api.tokens into the table: 0 with at least one token, or the refusal printed. */
static int load_tokens(const struct boot_file *f)
{
	unsigned int admin = 0;
	char why[1024];
	int skipped = api_tokens_parse((const char *)f->data, f->size, &tokens, why, sizeof(why));

	print_reasons(why, skipped);
	if (!tokens.n) {
		pr_err("api: no usable token in %s" OFF, TOKENS_FILE);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < tokens.n; i++)
		admin += tokens.slot[i].role == API_ROLE_ADMIN;
	pr_info("api: %u token%s (%u admin, %u read)\n", tokens.n, tokens.n == 1 ? "" : "s", admin,
		tokens.n - admin);
	return 0;
}

/* With every file in hand: parse, and say what stops the API if anything does. */
static int load_all(const struct boot_file *crt, const struct boot_file *key,
		    const struct boot_file *tok)
{
	int err;

	if (!crt) {
		pr_info("api: no certificate (boot file %s)" OFF, CRT_FILE);
		return -ENOENT;
	}
	if (!key) {
		pr_err("api: a certificate but no private key (boot file %s)" OFF, KEY_FILE);
		return -ENOENT;
	}
	err = load_cert(crt, key);
	if (err)
		return err;
	if (!tok) {
		pr_err("api: no tokens (boot file %s): nobody could use it" OFF, TOKENS_FILE);
		return -ENOENT;
	}
	err = load_tokens(tok);
	if (err)
		return err;
	if (api_bad_param) {
		pr_err("api: the command line's %s is unknown or was refused (api.* fails closed)" OFF,
		       api_bad_param);
		return -EINVAL;
	}
	return 0;
}

int api_files_load(void)
{
	if (result <= 0)
		return result;	/* a second call: the secret files are gone */
	result = load_all(boot_file_find(CRT_FILE), boot_file_find(KEY_FILE),
			  boot_file_find(TOKENS_FILE));
	boot_file_wipe(KEY_FILE);
	boot_file_wipe(TOKENS_FILE);
	if (result) {
		tls_cert_free(cert);
		cert = NULL;
		api_tokens_wipe(&tokens);
		return result;
	}
	enabled = true;
	return 0;
}

void api_files_unload(void)
{
	tls_cert_free(cert);
	cert = NULL;
	api_tokens_wipe(&tokens);
	enabled = false;
	result = 1;
}

bool api_enabled(void)
{
	return enabled;
}

struct tls_cert *api_cert(void)
{
	return enabled ? cert : NULL;
}

const struct api_tokens *api_token_table(void)
{
	return enabled ? &tokens : NULL;
}

u16 api_port(void)
{
	return (u16)api_port_number;
}
