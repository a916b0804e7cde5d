/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A pack read into memory and verified, once: pack.json and its signature
 * against the trust file, every file listed against its SHA-256. Whoever
 * then uses a pack's profile uses these bytes, the ones that were hashed
 * (never a second read of the file).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pack_manifest.h"

#define PACK_NAMESPACE "cordon-pack"
#define PACK_MAX_ENTRIES 1024

/* Where packs live. Every field a path; filled by pack_paths_default. */
struct pack_paths {
	char *trust_system; /* /etc/cordon/allowed_signers: if it exists, the only trust file */
	char *trust_user;   /* $XDG_CONFIG_HOME/cordon/allowed_signers */
	char *store;        /* $XDG_CONFIG_HOME/cordon/packs: OWNER/NAME/ and lock.json */
};

int pack_paths_default(struct pack_paths *ret);
void pack_paths_done(struct pack_paths *p);

struct pack_image {
	struct pack_manifest *m;
	char *manifest_text, *sig_text;
	size_t manifest_len, sig_len;
	uint8_t manifest_sha256[32];
	uint8_t *signer; /* the signing key's blob */
	size_t signer_len;
	char *trust_file; /* the trust file that vouched for it */
	char **file_text; /* [m->n_files], the bytes hashed */
	size_t *file_len;
};

void pack_image_free(struct pack_image *img);

/* Read the pack in the directory dirfd and verify it: the signature over
 * pack.json by a key the trust file allows for the pack's owner, then each
 * listed file's hash (paths NULL: no signature read, the --insecure-local
 * case; the hashes still checked). strict (an install's source): nothing else may be
 * there (no symlink, device, executable, unlisted file). Refusals:
 * -EKEYREJECTED, -EBADMSG, -EPERM, -ENOENT with the reason. */
int pack_image_read(int dirfd, const struct pack_paths *paths, bool strict, struct pack_image **ret,
		    struct cordon_error *reterr);

/* pack.json's bytes checked against their signature by a key the trust
 * file allows for the pack's owner, and only then parsed: the manifest,
 * the signer's key blob and the trust file's path. */
int pack_signed_manifest(const struct pack_paths *paths, const char *manifest, size_t manifest_len,
			 const char *sig_text, size_t sig_len, struct pack_manifest **ret, uint8_t **ret_signer,
			 size_t *ret_signer_len, char **ret_trust_file, struct cordon_error *reterr);

/* The bytes of profile name in img (NULL: none). */
const char *pack_image_profile(const struct pack_image *img, const char *name, size_t *ret_len);

/* SHA-256 of data as 64 lowercase hex digits and a NUL. */
void pack_sha256_hex(const void *data, size_t len, char hex[65]);
