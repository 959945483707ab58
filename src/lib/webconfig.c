// SPDX-License-Identifier: GPL-2.0
/* kdist serve --web-config: see webconfig.h and docs/serve.md "Security". */
#include "lib/webconfig.h"
#include "lib/util.h"

#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <sys/stat.h>
#include <yaml.h>

/* A web config is a few lines: 64 KiB hold a thousand users.  libyaml's
 * time grows with the square of nested flow collections ("[[[["), 1 s for
 * 16,384 of them, so they are refused deeper than WEBCONFIG_MAX_DEPTH:
 * a file is parsed within milliseconds, at start and on SIGHUP alike. */
#define WEBCONFIG_MAX (64 << 10)
#define WEBCONFIG_MAX_DEPTH 32

static int why_f(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *scalar(yaml_document_t *d, yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* path, or dir/path when relative; NULL (ENOMEM) or malloc'd. */
static char *resolve(const char *dir, const char *path)
{
	char *s;

	if (path[0] == '/' || !dir)
		return strdup(path);
	return asprintf(&s, "%s/%s", dir, path) < 0 ? NULL : s;
}

static int tls_version(const char *v)
{
	static const struct { const char *name; int v; } names[] = {
		{ "TLS12", TLS1_2_VERSION }, { "TLS13", TLS1_3_VERSION },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(v, names[i].name))
			return names[i].v;
	}
	return 0;
}

static int parse_tls(yaml_document_t *d, yaml_node_t *m, const char *dir, struct webconfig *wc,
		     char *why, size_t wn)
{
	static const char *const auth_types[] = {
		[WC_NO_CLIENT_CERT] = "NoClientCert", [WC_REQUEST] = "RequestClientCert",
		[WC_REQUIRE_ANY] = "RequireAnyClientCert",
		[WC_VERIFY_IF_GIVEN] = "VerifyClientCertIfGiven",
		[WC_REQUIRE_AND_VERIFY] = "RequireAndVerifyClientCert",
	};

	if (m->type != YAML_MAPPING_NODE)
		return why_f(why, wn, "tls_server_config is not a mapping");
	wc->tls = true;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const char *k = scalar(d, yaml_document_get_node(d, p->key));
		const char *v = scalar(d, yaml_document_get_node(d, p->value));
		char **path = NULL;

		if (!k || !v)
			return why_f(why, wn, "tls_server_config: keys and values must be scalars");
		if (!strcmp(k, "cert_file"))
			path = &wc->cert_file;
		else if (!strcmp(k, "key_file"))
			path = &wc->key_file;
		else if (!strcmp(k, "client_ca_file"))
			path = &wc->client_ca_file;
		if (path) {
			if (*path)
				return why_f(why, wn, "%s given twice", k);
			if (!*v)
				continue;
			*path = resolve(dir, v);
			if (!*path)
				return -ENOMEM;
		} else if (!strcmp(k, "client_auth_type")) {
			size_t i = 0;

			while (i < ARRAY_SIZE(auth_types) && strcmp(v, auth_types[i]))
				i++;
			if (i == ARRAY_SIZE(auth_types))
				return why_f(why, wn, "unknown client_auth_type '%.40s' (NoClientCert, "
					     "RequestClientCert, RequireAnyClientCert, "
					     "VerifyClientCertIfGiven, RequireAndVerifyClientCert)", v);
			wc->client_auth = i;
		} else if (!strcmp(k, "min_version") || !strcmp(k, "max_version")) {
			int ver = tls_version(v);

			if (!ver)
				return why_f(why, wn, "unsupported %s '%.40s' (TLS12 or TLS13)", k, v);
			*(k[1] == 'i' ? &wc->min_version : &wc->max_version) = ver;
		} else {
			return why_f(why, wn, "unsupported key tls_server_config.%.40s", k);
		}
	}
	if (!wc->cert_file || !wc->key_file)
		return why_f(why, wn, "tls_server_config needs cert_file and key_file");
	if (wc->client_auth >= WC_VERIFY_IF_GIVEN && !wc->client_ca_file)
		return why_f(why, wn, "client_auth_type %s needs client_ca_file",
			     auth_types[wc->client_auth]);
	if (wc->min_version && wc->max_version && wc->min_version > wc->max_version)
		return why_f(why, wn, "min_version is above max_version: no TLS version is left");
	return 0;
}

/* A bcrypt hash as crypt_r() takes it: "$2a$", "$2b$" or "$2y$", a cost of
 * two digits from 04 to 31, '$', then 53 characters of bcrypt's base64
 * (salt and hash). */
static bool bcrypt_hash(const char *v)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(v) != 60 || strncmp(v, "$2", 2) || !v[2] || !strchr("aby", v[2]) || v[3] != '$' ||
	    v[4] < '0' || v[4] > '9' || v[5] < '0' || v[5] > '9' || v[6] != '$')
		return false;
	cost = (v[4] - '0') * 10 + (v[5] - '0');
	return cost >= 4 && cost <= 31 && strspn(v + 7, b64) == 53;
}

static int bcrypt_cost(const char *v)
{
	return (v[4] - '0') * 10 + (v[5] - '0');
}

static int parse_users(yaml_document_t *d, yaml_node_t *m, struct webconfig *wc, char *why,
		       size_t wn)
{
	if (m->type == YAML_SCALAR_NODE && !*scalar(d, m))
		return 0;	/* "basic_auth_users:" with nothing */
	if (m->type != YAML_MAPPING_NODE)
		return why_f(why, wn, "basic_auth_users is not a mapping");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const char *k = scalar(d, yaml_document_get_node(d, p->key));
		const char *v = scalar(d, yaml_document_get_node(d, p->value));
		struct wc_user *u;

		if (!k || !v || !*k)
			return why_f(why, wn, "basic_auth_users: user names and hashes must be scalars");
		if (strchr(k, ':'))
			return why_f(why, wn, "user '%.40s': a name with ':' cannot log in", k);
		if (!bcrypt_hash(v))
			return why_f(why, wn, "user '%.40s': not a bcrypt hash ($2y$..., 60 characters)", k);
		if (bcrypt_cost(v) > WEBCONFIG_MAX_COST)
			return why_f(why, wn, "user '%.40s': bcrypt cost %d, at most %d (each wrong password costs the server 2^cost rounds)",
				     k, bcrypt_cost(v), WEBCONFIG_MAX_COST);
		for (int i = 0; i < wc->nusers; i++) {
			if (!strcmp(wc->users[i].name, k))
				return why_f(why, wn, "user '%.40s' given twice", k);
		}
		u = realloc(wc->users, (wc->nusers + 1) * sizeof(*u));
		if (!u)
			return -ENOMEM;
		wc->users = u;
		u[wc->nusers] = (struct wc_user){ strdup(k), strdup(v) };
		if (!u[wc->nusers].name || !u[wc->nusers++].hash)
			return -ENOMEM;
	}
	return 0;
}

/* The deepest nesting of flow collections ([ and {) in text, quoted
 * strings and comments aside. */
static int flow_depth(const char *text, size_t len)
{
	int depth = 0, deepest = 0;
	char quote = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (quote) {
			if (c == '\\' && quote == '"')
				i++;
			else if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '#') {
			while (i < len && text[i] != '\n')
				i++;
		} else if (c == '[' || c == '{') {
			if (++depth > deepest)
				deepest = depth;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return deepest;
}

int webconfig_parse(const char *text, size_t len, const char *dir, struct webconfig *wc,
		    char *why, size_t wn)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int err = 0;

	*wc = (struct webconfig){ 0 };
	if (flow_depth(text, len) > WEBCONFIG_MAX_DEPTH)
		return why_f(why, wn, "nested deeper than %d", WEBCONFIG_MAX_DEPTH);
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err = why_f(why, wn, "line %zu: %s", parser.problem_mark.line + 1,
			    parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return err;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		     p < root->data.mapping.pairs.top && !err; p++) {
			const char *k = scalar(&doc, yaml_document_get_node(&doc, p->key));
			yaml_node_t *v = yaml_document_get_node(&doc, p->value);

			if (k && !strcmp(k, "tls_server_config") && !wc->tls)
				err = parse_tls(&doc, v, dir, wc, why, wn);
			else if (k && !strcmp(k, "basic_auth_users") && !wc->users)
				err = parse_users(&doc, v, wc, why, wn);
			else
				err = why_f(why, wn, "unsupported key '%.40s' (tls_server_config, "
					    "basic_auth_users)", k ? k : "?");
		}
	} else if (root && !(root->type == YAML_SCALAR_NODE && !*scalar(&doc, root))) {
		err = why_f(why, wn, "not a mapping of tls_server_config and basic_auth_users");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (err == -ENOMEM)
		why_f(why, wn, "%s", strerror(ENOMEM));
	if (err)
		webconfig_free(wc);
	return err;
}

/* OpenSSL's first queued error, as text. */
static const char *ssl_why(void)
{
	static char buf[160];
	unsigned long e = ERR_get_error();

	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return e ? buf : "unknown error";
}

/* RequestClientCert and RequireAnyClientCert take any certificate. */
static int accept_any(int ok, X509_STORE_CTX *x)
{
	return 1;
}

static int make_tls(const char *path, struct webconfig *wc)
{
	const char *files[] = { wc->cert_file, wc->key_file, wc->client_ca_file };
	SSL_CTX *ctx;
	const char *what = "create the TLS context";
	int mode = SSL_VERIFY_NONE;
	struct stat st;

	/* OpenSSL opens them blocking: a FIFO there would hang the server */
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		const char *why;

		if (!files[i])
			continue;
		if (stat(files[i], &st))
			why = strerror(errno);
		else if (!S_ISREG(st.st_mode))
			why = "not a regular file";
		else
			continue;
		kd_err("bad --web-config %s: failed to load %s: %s", path, files[i], why);
		return -EINVAL;
	}
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx)
		goto fail;
	SSL_CTX_set_min_proto_version(ctx, wc->min_version ? wc->min_version : TLS1_2_VERSION);
	if (wc->max_version)
		SSL_CTX_set_max_proto_version(ctx, wc->max_version);
	what = wc->cert_file;
	if (SSL_CTX_use_certificate_chain_file(ctx, wc->cert_file) != 1)
		goto fail;
	what = wc->key_file;
	if (SSL_CTX_use_PrivateKey_file(ctx, wc->key_file, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1)
		goto fail;
	what = wc->client_ca_file;
	if (wc->client_ca_file && SSL_CTX_load_verify_locations(ctx, wc->client_ca_file, NULL) != 1)
		goto fail;
	if (wc->client_auth != WC_NO_CLIENT_CERT)
		mode = SSL_VERIFY_PEER;
	if (wc->client_auth == WC_REQUIRE_ANY || wc->client_auth == WC_REQUIRE_AND_VERIFY)
		mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
	SSL_CTX_set_verify(ctx, mode, wc->client_auth < WC_VERIFY_IF_GIVEN ? accept_any : NULL);
	/* a partial SSL_write() continues from where the socket was full */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	wc->tls_ctx = ctx;
	return 0;
fail:
	kd_err("bad --web-config %s: failed to load %s: %s", path, what, ssl_why());
	SSL_CTX_free(ctx);
	return -EINVAL;
}

int webconfig_load(const char *path, struct webconfig *wc)
{
	char *text = NULL, *copy = strdup(path), why[256];
	size_t len = 0;
	/* a regular file only: a FIFO whose writer sends nothing would read
	 * as an empty file, and so as "no TLS and no users" */
	int err = copy ? read_file_max(path, WEBCONFIG_MAX, &text, &len) : -ENOMEM;

	*wc = (struct webconfig){ 0 };
	if (err) {
		kd_err("bad --web-config %s: %s", path,
		       err == -EINVAL ? "not a regular file" : read_input_strerror(err, WEBCONFIG_MAX));
		free(copy);
		return err;
	}
	err = webconfig_parse(text, len, dirname(copy), wc, why, sizeof(why));
	free(text);
	free(copy);
	if (err) {
		kd_err("bad --web-config %s: %s", path, why);
		return err;
	}
	if (wc->tls) {
		err = make_tls(path, wc);
		if (err)
			webconfig_free(wc);
	}
	return err;
}

void webconfig_free(struct webconfig *wc)
{
	for (int i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	free(wc->client_ca_file);
	SSL_CTX_free(wc->tls_ctx);
	free(wc->good);
	*wc = (struct webconfig){ 0 };
}

/* The credentials of an Authorization value (after "Basic " and blanks)
 * in *value and *len; false when it is not basic auth. */
static bool basic_credentials(const char **value, size_t *len)
{
	if (*len < 6 || strncasecmp(*value, "Basic ", 6))
		return false;
	*value += 6;
	*len -= 6;
	while (*len && **value == ' ')
		++*value, --*len;
	return true;
}

/* a scrape every few seconds need not cost a bcrypt each time: the last
 * value accepted is remembered, and compared in constant time */
bool webconfig_auth_known(const struct webconfig *wc, const char *value, size_t len)
{
	return wc->nusers && wc->good && basic_credentials(&value, &len) && strlen(wc->good) == len &&
	       !CRYPTO_memcmp(wc->good, value, len);
}

bool webconfig_auth(struct webconfig *wc, const char *value, size_t len)
{
	unsigned char cred[512];
	struct crypt_data cd;
	const char *out;
	const char *hash;
	char *colon;
	int n, pad, user = 0;
	bool ok;

	if (webconfig_auth_known(wc, value, len))
		return true;
	if (!wc->nusers || !basic_credentials(&value, &len))
		return false;
	if (!len || len % 4 || len / 4 * 3 >= sizeof(cred))
		return false;
	/* padding: at most two '=', at the end ("====" decodes to nothing) */
	for (pad = 0; (size_t)pad < len && value[len - 1 - pad] == '='; pad++)
		;
	if (pad > 2)
		return false;
	n = EVP_DecodeBlock(cred, (const unsigned char *)value, len);
	if (n < pad)
		return false;
	n -= pad;	/* EVP_DecodeBlock counts the padding's zero bytes */
	cred[n] = '\0';
	colon = memchr(cred, ':', n);
	if (!colon || memchr(cred, '\0', n))
		return false;
	*colon = '\0';
	while (user < wc->nusers && strcmp(wc->users[user].name, (char *)cred))
		user++;
	/* an unknown user costs a bcrypt too: the time tells no names */
	hash = wc->users[user < wc->nusers ? user : 0].hash;
	memset(&cd, 0, sizeof(cd));
	out = crypt_r(colon + 1, hash, &cd);
	ok = user < wc->nusers && out && strlen(out) == strlen(hash) &&
	     !CRYPTO_memcmp(out, hash, strlen(out));
	OPENSSL_cleanse(cred, sizeof(cred));
	OPENSSL_cleanse(&cd, sizeof(cd));
	if (ok) {
		free(wc->good);
		wc->good = strndup(value, len);
	}
	return ok;
}
