/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --credentials-fd, the runner's side (issue 23): the sandbox trusts the
 * session CA its proxy issues leaves from, and the host's trust never
 * changes. The runner reads the table's public part (the CA certificate and
 * its subject hash; credtable_public.c, no libcrypto) and hands the fd on
 * to the proxy; init then replaces, in the sandbox's mount namespace only,
 * each certificate directory of the host (/etc/ssl/certs, /etc/pki/tls,
 * /etc/pki/tls/certs) with a read-only tmpfs holding the same entries, every
 * bundle (ca-certificates.crt, ca-bundle.crt, cert.pem, tls-ca-bundle.pem)
 * with the session CA appended, the CA as cordon-session-ca.pem and its
 * "HASH.N" link: clients that read only the system paths (Go, static
 * binaries, `openssl s_client`) trust it too. The usual variables are set
 * as well (policy_trust_env). The JVM reads none of them, only a key store: the
 * supervisor's PKCS#12 of the host's roots and the session CA (public part
 * of the table, lib/cred/trust_store.h) is written beside the bundle, and
 * JAVA_TOOL_OPTIONS names it (added to the proxy's options).
 */

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "trust_store.h"

struct exec_ctx;

#define TRUST_CA_FILE POLICY_TRUST_CA_FILE
#define TRUST_BUNDLE POLICY_TRUST_BUNDLE
#define TRUST_ENV_MAX (POLICY_TRUST_ENV_MAX + 1) /* policy_trust_env, JAVA_TOOL_OPTIONS */
#define TRUST_JAVA_STORE_NAME "cordon-java-truststore.p12"
#define TRUST_JAVA_OPTIONS                                                                                   \
	"-Djavax.net.ssl.trustStore=/etc/ssl/certs/" TRUST_JAVA_STORE_NAME " -Djavax.net.ssl.trustStoreType=PKCS12 " \
	"-Djavax.net.ssl.trustStorePassword=" TRUST_STORE_PASSWORD

/* trust_env_add adds the variables that point clients at the bundle (or,
 * where a client adds to its own roots, at the CA alone: policy_trust_env,
 * the library's one list; env_name_is_trust says which names they are)
 * and the JVM's options (merged into a JAVA_TOOL_OPTIONS already in
 * envp[0..k); when memory fails the JVM goes without). */
size_t trust_env_add(char **envp, size_t k);

/* Runner, before the proxy starts: the public part from the fd (dies on a
 * malformed one: fail closed). */
void trust_read_public(struct exec_ctx *x);
/* Init, STEP_TRUST (mount stage): the certificate directories. Dies on
 * failure. */
void trust_mount(struct exec_ctx *x, size_t step);
