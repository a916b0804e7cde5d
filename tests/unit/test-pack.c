/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Packs' parsers (issue 24): SSH signatures, the trust file, pack.json and
 * what a pack's profile may carry. The signature is ssh-keygen's, made once
 * (ssh-keygen -Y sign -n cordon-pack) over MSG with KEY. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "allowed_signers.h"
#include "pack_image.h"
#include "pack_manifest.h"
#include "pack_rules.h"
#include "sshsig.h"

#define MSG "unit test message"
#define KEY "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIABRD6SJ6llp0rixGWXLHep3+bTKt7C03X+xX8acQbtX"
static const char sig_text[] = "-----BEGIN SSH SIGNATURE-----\n"
			       "U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgAFEPpInqWWnSuLEZZcsd6nf5tM\n"
			       "q3sLTdf7FfxpxBu1cAAAALY29yZG9uLXBhY2sAAAAAAAAABnNoYTUxMgAAAFMAAAALc3No\n"
			       "LWVkMjU1MTkAAABAXj60IyKDHqIoBM+Hng6UhOnt5Gv6WwFU/b/t3zs8lsIiI1zP02VbVC\n"
			       "+n4cscI64Ei0BwaJXBYzrJWuQjXkXaAQ==\n"
			       "-----END SSH SIGNATURE-----\n";

static struct cordon_error why;

static struct sshsig *parse_ok(const char *text)
{
	struct sshsig *s = NULL;

	cr_assert_eq(sshsig_parse(text, strlen(text), &s, &why), 0, "%s", why.message);
	return s;
}

Test(sshsig, good_signature_verifies)
{
	struct sshsig *s = parse_ok(sig_text);

	cr_assert_str_eq(s->namespace, "cordon-pack");
	cr_assert_str_eq(s->hash_alg, "sha512");
	cr_assert_eq(sshsig_verify(s, "cordon-pack", MSG, strlen(MSG), &why), 0, "%s", why.message);
	sshsig_free(s);
}

Test(sshsig, changed_message_wrong_namespace_refused)
{
	struct sshsig *s = parse_ok(sig_text);

	cr_assert_eq(sshsig_verify(s, "cordon-pack", MSG "!", strlen(MSG) + 1, &why), -EKEYREJECTED);
	cr_assert_eq(sshsig_verify(s, "git", MSG, strlen(MSG), &why), -EKEYREJECTED);
	cr_assert(strstr(why.message, "namespace"));
	sshsig_free(s);
}

Test(sshsig, a_flipped_signature_byte_refused)
{
	char text[sizeof(sig_text)];
	struct sshsig *s;

	memcpy(text, sig_text, sizeof(text));
	/* a base64 digit inside the signature value */
	text[strlen(text) - strlen("Q==\n-----END SSH SIGNATURE-----\n") - 3] ^= 1;
	s = parse_ok(text);
	cr_assert_neq(sshsig_verify(s, "cordon-pack", MSG, strlen(MSG), &why), 0);
	sshsig_free(s);
}

Test(sshsig, malformed_refused)
{
	static const char *bad[] = {
		"",
		"-----BEGIN SSH SIGNATURE-----\n",
		"-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n",
		"-----BEGIN SSH SIGNATURE-----\n!!!!\n-----END SSH SIGNATURE-----\n",
		"-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAg==\n-----END SSH SIGNATURE-----\n", /* version 2 */
		"-----BEGIN PGP SIGNATURE-----\nU1NIU0lH\n-----END PGP SIGNATURE-----\n",
	};
	struct sshsig *s = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_lt(sshsig_parse(bad[i], strlen(bad[i]), &s, &why), 0, "%zu", i);
	{
		char trailing[sizeof(sig_text) + 8];

		snprintf(trailing, sizeof(trailing), "%sextra", sig_text);
		cr_assert_lt(sshsig_parse(trailing, strlen(trailing), &s, &why), 0);
	}
}

Test(sshsig, key_types)
{
	uint8_t *blob = NULL;
	size_t len = 0;
	/* sk-ssh-ed25519@openssh.com */
	const char *sk = "AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIFNVvKKd3s8w5pAVq9eP7Wm+fhE66pRu4hhHpPyd9AXM"
			 "AAAABHNzaDo=";
	const char *ed = "AAAAC3NzaC1lZDI1NTE5AAAAIABRD6SJ6llp0rixGWXLHep3+bTKt7C03X+xX8acQbtX";

	cr_assert_eq(ssh_base64_decode(sk, strlen(sk), 4096, &blob, &len), 0);
	cr_assert_eq(sshkey_blob_check(blob, len, NULL, &why), -EPROTONOSUPPORT);
	cr_assert(strstr(why.message, "security-key"), "%s", why.message);
	free(blob);
	cr_assert_eq(ssh_base64_decode(ed, strlen(ed), 4096, &blob, &len), 0);
	cr_assert_eq(sshkey_blob_check(blob, len, NULL, &why), 0, "%s", why.message);
	cr_assert_lt(sshkey_blob_check(blob, len - 1, NULL, &why), 0);
	free(blob);
}

static int trust(const char *text, const char *principal, time_t now)
{
	struct allowed_signers *s = NULL;
	struct sshsig *sig = parse_ok(sig_text);
	int r = allowed_signers_parse(text, strlen(text), &s, &why);

	if (r == 0)
		r = allowed_signers_check(s, principal, sig->pubkey, sig->pubkey_len, "cordon-pack", now, &why);
	allowed_signers_free(s);
	sshsig_free(sig);
	return r;
}

Test(allowed_signers, exact_principal_namespace_and_time)
{
	time_t now = 1800000000; /* 2027-01-15 */

	cr_assert_eq(trust("acme namespaces=\"cordon-pack\" " KEY "\n", "acme", now), 0, "%s", why.message);
	cr_assert_eq(trust("# c\n\nother,acme namespaces=\"git,cordon-pack\" " KEY " comment\n", "acme", now), 0, "%s",
		     why.message);
	cr_assert_eq(trust("acme namespaces=\"cordon-pack\" " KEY "\n", "acm", now), -EKEYREJECTED);
	cr_assert_eq(trust("acme namespaces=\"git\" " KEY "\n", "acme", now), -EKEYREJECTED);
	cr_assert_eq(trust("acme " KEY "\n", "acme", now), -EKEYREJECTED); /* no namespaces= */
	cr_assert_eq(trust("acme namespaces=\"cordon-pack\",valid-before=\"20270101Z\" " KEY "\n", "acme", now),
		     -EKEYREJECTED);
	cr_assert_eq(trust("acme namespaces=\"cordon-pack\",valid-after=\"20280101Z\" " KEY "\n", "acme", now),
		     -EKEYREJECTED);
	cr_assert_eq(trust("acme namespaces=\"cordon-pack\",valid-after=\"20260101\",valid-before=\"20280101\" " KEY
			   "\n",
			   "acme", now),
		     0, "%s", why.message);
	cr_assert_eq(trust("", "acme", now), -EKEYREJECTED);
}

Test(allowed_signers, strictness)
{
	static const char *bad[] = {
		"ac* namespaces=\"cordon-pack\" " KEY "\n",
		"!acme namespaces=\"cordon-pack\" " KEY "\n",
		"acme cert-authority " KEY "\n",
		"acme no-touch-required " KEY "\n",
		"acme namespaces=cordon-pack " KEY "\n",
		"acme namespaces=\"cordon-*\" " KEY "\n",
		"acme namespaces=\"cordon-pack\",valid-after=\"2026\" " KEY "\n",
		"acme namespaces=\"cordon-pack\" ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIABRD6SJ6llp0rixGWXLHep3+bTKt7C03X+xX8acQbtX\n",
		"acme namespaces=\"cordon-pack\" ssh-ed25519 AAAA!!!\n",
		"acme namespaces=\"cordon-pack\"\n",
	};
	struct allowed_signers *s = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_lt(allowed_signers_parse(bad[i], strlen(bad[i]), &s, &why), 0, "%zu", i);
}

static const char manifest_fmt[] = "{\"name\":\"%s\",\"version\":\"%s\",\"description\":\"d\","
				   "\"profiles\":{\"build\":\"%s\"},\"files\":{\"%s\":\"%064d\"}}";

static int manifest(const char *name, const char *version, const char *prof, const char *file)
{
	char text[1024];
	struct pack_manifest *m = NULL;
	int r;

	snprintf(text, sizeof(text), manifest_fmt, name, version, prof, file, 0);
	r = pack_manifest_parse(text, strlen(text), &m, &why);
	pack_manifest_free(m);
	return r;
}

Test(pack_manifest, names_paths_versions)
{
	cr_assert_eq(manifest("acme/tools", "1.2.3", "p/build.json", "p/build.json"), 0, "%s", why.message);
	cr_assert_lt(manifest("acme", "1.2.3", "p/build.json", "p/build.json"), 0);
	cr_assert_lt(manifest("Acme/tools", "1.2.3", "p/build.json", "p/build.json"), 0);
	cr_assert_lt(manifest("acme/tools/x", "1.2.3", "p/build.json", "p/build.json"), 0);
	cr_assert_lt(manifest("acme/tools", "1.2", "p/build.json", "p/build.json"), 0);
	cr_assert_lt(manifest("acme/tools", "01.2.3", "p/build.json", "p/build.json"), 0);
	cr_assert_lt(manifest("acme/tools", "1.2.3", "../build.json", "../build.json"), 0);
	cr_assert_lt(manifest("acme/tools", "1.2.3", "/etc/x.json", "/etc/x.json"), 0);
	cr_assert_lt(manifest("acme/tools", "1.2.3", "p/.hidden", "p/.hidden"), 0);
	cr_assert_lt(manifest("acme/tools", "1.2.3", "p//x.json", "p//x.json"), 0);
	cr_assert_lt(manifest("acme/tools", "1.2.3", "other.json", "p/build.json"), 0); /* unlisted profile file */
	cr_assert_lt(manifest("acme/tools", "1.2.3", "pack.json.sig", "pack.json.sig"), 0);
}

Test(pack_manifest, version_order)
{
	const char *t1 = "{\"name\":\"a/b\",\"version\":\"1.10.0\",\"profiles\":{\"p\":\"f\"},\"files\":{\"f\":"
			 "\"0000000000000000000000000000000000000000000000000000000000000000\"}}";
	const char *t2 = "{\"name\":\"a/b\",\"version\":\"1.9.9\",\"profiles\":{\"p\":\"f\"},\"files\":{\"f\":"
			 "\"0000000000000000000000000000000000000000000000000000000000000000\"}}";
	struct pack_manifest *a = NULL, *b = NULL;

	cr_assert_eq(pack_manifest_parse(t1, strlen(t1), &a, &why), 0, "%s", why.message);
	cr_assert_eq(pack_manifest_parse(t2, strlen(t2), &b, &why), 0, "%s", why.message);
	cr_assert_gt(pack_version_cmp(a, b), 0);
	cr_assert_lt(pack_version_cmp(b, a), 0);
	pack_manifest_free(a);
	pack_manifest_free(b);
}

static int rules(const char *json)
{
	return pack_rules_check(json, strlen(json), "acme", "tools", &why);
}

Test(pack_rules, what_a_pack_may_carry)
{
	cr_assert_eq(rules("{\"extends\":\"workspace-write\",\"filesystem\":{\"read\":[\"/opt\"],\"write\":["
			   "\"$WORKSPACE/out\",\"build\"]}}"),
		     0, "%s", why.message);
	cr_assert_eq(rules("{\"extends\":\"acme/tools/base\"}"), 0, "%s", why.message);
	cr_assert_eq(
		rules("{\"command_policies\":{\"commands\":{\"git\":{\"sandbox\":{\"fs_write\":[\"$WORKSPACE\"]}}}}}"),
		0, "%s", why.message);
}

Test(pack_rules, refused_each_by_its_key)
{
	static const struct {
		const char *json, *pointer;
	} bad[] = {
		{ "{\"credentials\":{}}", "/credentials" },
		{ "{\"credential_capture\":{}}", "/credential_capture" },
		{ "{\"command_policies\":{\"approval_backends\":{}}}", "/command_policies/approval_backends" },
		{ "{\"command_policies\":{\"commands\":{\"x\":{\"webhook\":\"u\"}}}}", "/webhook" },
		{ "{\"open_urls\":{}}", "/open_urls" },
		{ "{\"network\":{\"mode\":\"host\"}}", "/network/mode" },
		{ "{\"command_policies\":{\"commands\":{\"x\":{\"sandbox\":{\"network\":{\"mode\":\"host\"}}}}}}",
		  "/sandbox/network/mode" },
		{ "{\"network\":{\"allow_addresses\":[]}}", "/network/allow_addresses" },
		{ "{\"network\":{\"allow_unix_sockets\":[]}}", "/network/allow_unix_sockets" },
		{ "{\"groups\":{}}", "/groups" },
		{ "{\"mode\":\"danger-full-access\"}", "/mode" },
		{ "{\"workspace\":\"/\"}", "/workspace" },
		{ "{\"extends\":\"./x.json\"}", "/extends" },
		{ "{\"extends\":\"other/tools/x\"}", "/extends" },
		{ "{\"extends\":\"acme/toolsx/x\"}", "/extends" },
		{ "{\"filesystem\":{\"write\":[\"/tmp\"]}}", "/filesystem/write/0" },
		{ "{\"filesystem\":{\"write\":[\"$HOME\"]}}", "/filesystem/write/0" },
		{ "{\"filesystem\":{\"write\":[\"$WORKSPACEX\"]}}", "/filesystem/write/0" },
		{ "{\"filesystem\":{\"write\":[\"a/../../x\"]}}", "/filesystem/write/0" },
		{ "{\"filesystem\":{\"write\":[\"..\"]}}", "/filesystem/write/0" },
		{ "{\"command_policies\":{\"commands\":{\"x\":{\"sandbox\":{\"fs_write_file\":[\"~/.bashrc\"]}}}}}",
		  "fs_write_file/0" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(rules(bad[i].json), -EPERM, "%zu: %s", i, bad[i].json);
		cr_assert(strstr(why.message, bad[i].pointer), "%zu: %s", i, why.message);
	}
}

/* The trust file's place: /etc's (here a stand-in path) when it exists,
 * even empty, and only then the user's. */
static const char signed_manifest[] = "{\"name\":\"acme/tools\",\"version\":\"1.0.0\",\"profiles\":{\"p\":\"f.json\"},"
				      "\"files\":{\"f.json\":"
				      "\"0000000000000000000000000000000000000000000000000000000000000000\"}}";
static const char manifest_sig[] = "-----BEGIN SSH SIGNATURE-----\n"
				   "U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgAFEPpInqWWnSuLEZZcsd6nf5tM\n"
				   "q3sLTdf7FfxpxBu1cAAAALY29yZG9uLXBhY2sAAAAAAAAABnNoYTUxMgAAAFMAAAALc3No\n"
				   "LWVkMjU1MTkAAABAmFR3AnjLyqVAsKDnwly9Xtu92J2hCrLnivtvOvqiGiBaeaQv6gqLDp\n"
				   "vg8KDm5YVTOzmZQ1hWA4Go9+3nysvrCQ==\n"
				   "-----END SSH SIGNATURE-----\n";

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static int signed_with(struct pack_paths *paths)
{
	struct pack_manifest *m = NULL;
	uint8_t *signer = NULL;
	size_t signer_len = 0;
	char *trust_file = NULL;
	int r = pack_signed_manifest(paths, signed_manifest, strlen(signed_manifest), manifest_sig,
				     strlen(manifest_sig), &m, &signer, &signer_len, &trust_file, &why);

	pack_manifest_free(m);
	free(signer);
	free(trust_file);
	return r;
}

Test(pack_trust, the_system_file_when_it_exists_is_the_only_one)
{
	char dir[] = "/tmp/test-pack-XXXXXX", sys_file[64], user_file[64];
	struct pack_paths paths;

	cr_assert(mkdtemp(dir));
	snprintf(sys_file, sizeof(sys_file), "%s/etc", dir);
	snprintf(user_file, sizeof(user_file), "%s/user", dir);
	paths = (struct pack_paths){ .trust_system = sys_file, .trust_user = user_file, .store = dir };

	cr_assert_eq(signed_with(&paths), -EKEYREJECTED);
	cr_assert(strstr(why.message, "no trust file"), "%s", why.message);
	write_text(user_file, "acme namespaces=\"cordon-pack\" " KEY "\n");
	cr_assert_eq(signed_with(&paths), 0, "%s", why.message);
	write_text(sys_file, "");
	cr_assert_eq(signed_with(&paths), -EKEYREJECTED, "an empty system file still rules");
	cr_assert(strstr(why.message, "lists no signer"), "%s", why.message);
	write_text(sys_file, "acme namespaces=\"cordon-pack\" " KEY "\n");
	cr_assert_eq(signed_with(&paths), 0, "%s", why.message);
	write_text(user_file, "");
	cr_assert_eq(signed_with(&paths), 0, "the user's file is not read then: %s", why.message);
	write_text(sys_file, "other namespaces=\"cordon-pack\" " KEY "\n");
	write_text(user_file, "acme namespaces=\"cordon-pack\" " KEY "\n");
	cr_assert_eq(signed_with(&paths), -EKEYREJECTED, "the user's file cannot add a signer");
	unlink(sys_file);
	unlink(user_file);
	rmdir(dir);
}

Test(pack_trust, the_manifest_is_signed_bytes)
{
	char dir[] = "/tmp/test-pack-XXXXXX", user_file[64];
	struct pack_paths paths;
	char changed[sizeof(signed_manifest)];
	struct pack_manifest *m = NULL;
	uint8_t *signer = NULL;
	size_t signer_len = 0;
	char *trust_file = NULL;

	cr_assert(mkdtemp(dir));
	snprintf(user_file, sizeof(user_file), "%s/user", dir);
	paths = (struct pack_paths){ .trust_system = "/nonexistent/cordon-test", .trust_user = user_file, .store = dir };
	write_text(user_file, "acme namespaces=\"cordon-pack\" " KEY "\n");
	memcpy(changed, signed_manifest, sizeof(changed));
	changed[strstr(changed, "1.0.0") - changed] = '9';
	cr_assert_eq(pack_signed_manifest(&paths, changed, strlen(changed), manifest_sig, strlen(manifest_sig), &m,
					  &signer, &signer_len, &trust_file, &why),
		     -EKEYREJECTED);
	cr_assert_null(m);
	unlink(user_file);
	rmdir(dir);
}
