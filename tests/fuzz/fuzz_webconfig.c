// SPDX-License-Identifier: GPL-2.0
/* The --web-config parser on arbitrary text: it accepts or refuses with a
 * reason, never crashes or leaks; what it accepts is complete (TLS with
 * both files, users with names and bcrypt-shaped hashes). */
#include "fuzz.h"
#include "lib/webconfig.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct webconfig wc;
	char why[256] = "";
	int err = webconfig_parse((const char *)data, size, "/etc/kdist", &wc, why, sizeof(why));

	if (err) {
		FUZZ_ASSERT(err == -EINVAL || err == -ENOMEM);
		FUZZ_ASSERT(why[0]);
		return 0;
	}
	FUZZ_ASSERT(!wc.tls || (wc.cert_file && wc.key_file));
	FUZZ_ASSERT(wc.client_auth < WC_VERIFY_IF_GIVEN || wc.client_ca_file);
	for (int i = 0; i < wc.nusers; i++) {
		FUZZ_ASSERT(wc.users[i].name[0] && !strchr(wc.users[i].name, ':'));
		FUZZ_ASSERT(strlen(wc.users[i].hash) == 60);
	}
	webconfig_free(&wc);
	return 0;
}
