/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * packs.t's driver: cordon's verdict on an SSH signature, beside
 * `ssh-keygen -Y verify`'s on the same bytes.
 *   pack-driver verify ALLOWED_SIGNERS PRINCIPAL NAMESPACE MSG SIG
 * exits 0 (good) or 1 with the reason on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allowed_signers.h"
#include "cleanup.h"
#include "fileio.h"
#include "sshsig.h"

static char *slurp(const char *path, size_t *len)
{
	char *text = NULL;
	int r = read_file_capped(path, 1 << 20, false, &text, len);

	if (r < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
		exit(2);
	}
	return text;
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *trust = NULL, *msg = NULL, *sigtext = NULL;
	struct allowed_signers *signers = NULL;
	struct sshsig *sig = NULL;
	size_t trust_len, msg_len, sig_len;
	struct cordon_error reason = {};
	int r;

	if (argc != 7 || strcmp(argv[1], "verify") != 0) {
		fprintf(stderr, "usage: pack-driver verify ALLOWED_SIGNERS PRINCIPAL NAMESPACE MSG SIG\n");
		return 2;
	}
	trust = slurp(argv[2], &trust_len);
	msg = slurp(argv[5], &msg_len);
	sigtext = slurp(argv[6], &sig_len);
	r = allowed_signers_parse(trust, trust_len, &signers, &reason);
	if (r >= 0)
		r = sshsig_parse(sigtext, sig_len, &sig, &reason);
	if (r >= 0)
		r = sshsig_verify(sig, argv[4], msg, msg_len, &reason);
	if (r >= 0)
		r = allowed_signers_check(signers, argv[3], sig->pubkey, sig->pubkey_len, argv[4], time(NULL), &reason);
	sshsig_free(sig);
	allowed_signers_free(signers);
	if (r < 0) {
		fprintf(stderr, "refused: %s\n", reason.message);
		return 1;
	}
	printf("good\n");
	return 0;
}
