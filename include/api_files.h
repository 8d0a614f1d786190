/*
 * The HTTPS management API's boot files (net/api_files.c): its certificate
 * (api.crt, PEM chain), private key (api.key, PEM, unencrypted) and bearer
 * tokens (api.tokens, include/api_tokens.h), read once at network init,
 * the secret ones wiped at once, and its port (api.port=). The API fails
 * closed: without a certificate, a usable key, a usable token, or with an
 * api.* parameter unknown or refused, it is off and one line says why.
 */
#ifndef PMEMK_API_FILES_H
#define PMEMK_API_FILES_H

#include "api_tokens.h"
#include "types.h"

struct tls_cert;

/*
 * Take the boot files api.crt, api.key and api.tokens, if the loader gave
 * them: parse them (tls_cert_parse, api_tokens_parse), wipe api.key and
 * api.tokens (whatever came of them), and print one line each:
 * "api: certificate CN=NAME (EC P-256), valid until 2027-12-06",
 * "api: 3 tokens (1 admin, 2 read)", one per skipped token line (its number
 * and why), or the one line saying why the API is off ("api: no certificate
 * (boot file api.crt): the HTTPS API is off"). Never a key or token byte.
 * 0: the API may serve (api_cert, api_tokens, api_port); -ENOENT, -EINVAL
 * or -ENOMEM: it is off. Called by net_init, with or without a NIC; a
 * second call finds no key or tokens and leaves things as they were.
 */
int api_files_load(void);

/*
 * Free the certificate and wipe the tokens: the API is off, and the next
 * api_files_load reads the boot files again (those it wiped are gone).
 */
void api_files_unload(void);

/* api_files_load succeeded: the HTTPS API has a certificate and tokens. */
bool api_enabled(void);
/* The server's certificate for tls_session_new_cert; NULL when the API is off. */
struct tls_cert *api_cert(void);
/* The bearer tokens for api_tokens_lookup; NULL when the API is off. */
const struct api_tokens *api_token_table(void);
/* api.port=: the TCP port to listen on (default 443). */
u16 api_port(void);

/* Connection slots of the API's server (net/api_server.c). */
#define API_MAX_CONNS 16
/* api.max-clients= (8), api.max-per-source= (4), api.request-timeout= (10 s), api.idle-timeout= (30 s). */
extern u64 api_max_clients, api_max_per_source, api_request_secs, api_idle_secs;

#endif
