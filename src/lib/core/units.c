/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sizes and durations: the grammar is in cordon.h (cordon_parse_size). Hand-written rather than
 * strtoull/strtod, which take signs, spaces, hex and exponents.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cordon/cordon.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Leading decimal digits of *s into *ret; -ERANGE past UINT64_MAX. */
static int read_digits(const char **s, uint64_t *ret)
{
	uint64_t v = 0;

	for (; is_digit(**s); (*s)++) {
		unsigned d = (unsigned)(**s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

int cordon_parse_size(const char *s, uint64_t *ret)
{
	uint64_t v;
	unsigned shift = 0;
	int r;

	if (!s || !ret || !is_digit(s[0]))
		return -EINVAL;
	r = read_digits(&s, &v);
	if (r < 0) {
		/* too long is out of range only when the rest is a size */
		while (is_digit(*s))
			s++;
	}
	switch (*s) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (shift) {
		s++;
		if (strcmp(s, "B") == 0)
			s += 1;
		else if (strcmp(s, "iB") == 0)
			s += 2;
		if (*s)
			return -EINVAL;
	}
	if (r < 0)
		return r;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret = v << shift;
	return 0;
}

int cordon_parse_duration(const char *s, uint64_t *ret_usec)
{
	static const struct {
		const char *suffix;
		uint64_t usec;
	} units[] = {
		{ "", CORDON_USEC_PER_SEC },
		{ "ms", 1000 },
		{ "s", CORDON_USEC_PER_SEC },
		{ "m", 60 * CORDON_USEC_PER_SEC },
		{ "h", 3600 * CORDON_USEC_PER_SEC },
	};
	__extension__ typedef unsigned __int128 u128;
	const char *frac = NULL, *frac_end = NULL;
	uint64_t whole = 0, mul = 0, v, part = 0, scale = 1;
	bool range = false, finer = false;
	int r;

	if (!s || !ret_usec || !(is_digit(s[0]) || (s[0] == '.' && is_digit(s[1]))))
		return -EINVAL;
	r = read_digits(&s, &whole);
	if (r < 0) {
		range = true;
		while (is_digit(*s))
			s++;
	}
	if (*s == '.') {
		frac = ++s;
		while (is_digit(*s))
			s++;
		frac_end = s;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s, units[i].suffix) == 0)
			mul = units[i].usec;
	if (!mul)
		return -EINVAL;
	if (range || whole > UINT64_MAX / mul)
		return -ERANGE;
	v = whole * mul;
	if (frac) {
		u128 num;
		uint64_t add;

		/* 18 digits are exact in 64 bits; any nonzero digit beyond
		 * rounds up */
		for (const char *p = frac; p < frac_end; p++) {
			if (p - frac < 18) {
				part = part * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			} else if (*p != '0')
				finer = true;
		}
		num = (u128)part * mul;
		add = (uint64_t)(num / scale);
		if (num % scale || finer)
			add++;
		if (add > UINT64_MAX - v)
			return -ERANGE;
		v += add;
	}
	*ret_usec = v;
	return 0;
}
