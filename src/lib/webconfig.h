/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdist serve --web-config FILE: TLS and basic auth, in the web
 * configuration format Prometheus exporters read:
 *
 *   tls_server_config:
 *     cert_file: server.crt        # relative to FILE's directory
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert   # optional
 *     client_ca_file: ca.crt                         # with Verify*
 *     min_version: TLS12                             # optional
 *     max_version: TLS13                             # optional
 *   basic_auth_users:
 *     prometheus: $2y$10$...       # bcrypt hashes
 *
 * Parsed by libyaml, the TLS context made by OpenSSL, passwords checked by
 * libxcrypt's crypt_r() and compared in constant time.
 */
#ifndef KDIST_WEBCONFIG_H
#define KDIST_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* The highest bcrypt cost a hash may have: every wrong password costs the
 * serving process 2^cost rounds (about 0.25 s at 12 on this project's
 * VM, 60 ms at 10); Prometheus' exporters suggest 10. */
#define WEBCONFIG_MAX_COST 12

enum wc_client_auth {
	WC_NO_CLIENT_CERT, WC_REQUEST, WC_REQUIRE_ANY, WC_VERIFY_IF_GIVEN, WC_REQUIRE_AND_VERIFY,
};

struct wc_user {
	char *name, *hash;
};

struct webconfig {
	bool tls;			/* tls_server_config given */
	char *cert_file, *key_file, *client_ca_file;	/* resolved */
	int client_auth;		/* enum wc_client_auth */
	int min_version, max_version;	/* OpenSSL's TLS1_x_VERSION, 0: default */
	struct wc_user *users;
	int nusers;
	void *tls_ctx;			/* SSL_CTX, made by webconfig_load */
	char *good;			/* the last Authorization value accepted */
};

/* Parse text (len bytes) into wc, paths relative to dir.  0, or -EINVAL
 * with the reason in why (nothing printed: the fuzzer calls it). */
int webconfig_parse(const char *text, size_t len, const char *dir, struct webconfig *wc,
		    char *why, size_t why_len);
/* Read and parse FILE, and make its TLS context: 0, or -errno after one
 * line "bad --web-config FILE: ...". */
int webconfig_load(const char *path, struct webconfig *wc);
void webconfig_free(struct webconfig *wc);

/* Whether an Authorization header value (len bytes) names a user of wc
 * with the right password: a bcrypt, unless webconfig_auth_known. */
bool webconfig_auth(struct webconfig *wc, const char *value, size_t len);
/* Whether it is the last value accepted: no bcrypt. */
bool webconfig_auth_known(const struct webconfig *wc, const char *value, size_t len);

#endif
