/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The open_urls parser: a table of URLs taken (with what a browser makes of
 * them) and refused (with the rule that refuses them). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "url_check.h"

static struct url_parsed u;

static const struct {
	const char *in, *url, *origin, *path;
} taken[] = {
	{ "https://github.com", "https://github.com/", "https://github.com", "/" },
	{ "https://github.com/", "https://github.com/", "https://github.com", "/" },
	{ "https://github.com/login/device", "https://github.com/login/device", "https://github.com", "/login/device" },
	{ "https://github.com/login/oauth/authorize?client_id=abc&state=x%20y#frag",
	  "https://github.com/login/oauth/authorize?client_id=abc&state=x%20y#frag", "https://github.com",
	  "/login/oauth/authorize" },
	{ "https://accounts.google.com:8443/o/oauth2?x=1", "https://accounts.google.com:8443/o/oauth2?x=1",
	  "https://accounts.google.com:8443", "/o/oauth2" },
	{ "http://localhost:8080/callback?code=1", "http://localhost:8080/callback?code=1", "http://localhost:8080",
	  "/callback" },
	{ "http://127.0.0.1:8080/cb", "http://127.0.0.1:8080/cb", "http://127.0.0.1:8080", "/cb" },
	{ "https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/", "https://xn--bcher-kva.example", "/" },
	{ "https://1password.com/a..b/.c/", "https://1password.com/a..b/.c/", "https://1password.com", "/a..b/.c/" },
	{ "https://github.com?x=1", "https://github.com/?x=1", "https://github.com", "/" },
};

static const struct {
	const char *in, *why;
} refused[] = {
	{ "https://github.com@evil.test/", "userinfo" },
	{ "https://user:pw@github.com/", "userinfo" },
	{ "https://evil.test\\@github.com/", "backslash" },
	{ "https:\\\\github.com/", "backslash" },
	{ "https://github.com:443/", "default port" },
	{ "http://localhost:80/", "default port" },
	{ "https://github.com:/", "empty port" },
	{ "https://github.com:0443/", "leading zero" },
	{ "https://github.com:65536/", "over 65535" },
	{ "https://github.com:44a/", "not a number" },
	{ "file:///etc/passwd", "scheme" },
	{ "javascript:alert(1)", "scheme" },
	{ "data:text/html,hi", "scheme" },
	{ "HTTPS://github.com/", "lower case" },
	{ "https://GitHub.com/", "lower case" },
	{ "https://github.com./", "trailing dot" },
	{ "https://.github.com/", "empty label" },
	{ "https://git..hub.com/", "empty label" },
	{ "https://%67ithub.com/", "percent-encoded host" },
	{ "https://github%2ecom/", "percent-encoded host" },
	{ "https://2130706433/", "numeric host" },
	{ "https://0x7f.0.0.1/", "numeric host" },
	{ "https://0177.0.0.1/", "numeric host" },
	{ "https://127.1/", "numeric host" },
	{ "https://1.2.3.4/", "numeric host" },
	{ "https://github.0x10/", "numeric host" },
	{ "https://[::1]/", "IPv6" },
	{ "https://git\thub.com/", "control" },
	{ "https://github.com/a\nb", "control" },
	{ "https://github.com/\r", "control" },
	{ "https://github.com/a b", "space" },
	{ " https://github.com/", "space" },
	{ "https://github.com/\x7f", "control" },
	{ "https://github.com/\xc3\xa9", "outside ASCII" },
	{ "https://github.com/a/../b", "path segment" },
	{ "https://github.com/./b", "path segment" },
	{ "https://github.com/a/..", "path segment" },
	{ "https://github.com/%2e%2e/b", "encoded" },
	{ "https://github.com/a%2Fb", "encoded" },
	{ "https://github.com/a%5cb", "encoded" },
	{ "https://github.com/%zz", "two hex digits" },
	{ "https://github.com/%4", "two hex digits" },
	{ "https://github.com/?q=%", "two hex digits" },
	{ "https://github.com/<script>", "in the path" },
	{ "https://github.com/?q='", "in the query" },
	{ "https://github.com/#a<b", "in the fragment" },
	{ "https:github.com", "//" },
	{ "https:/github.com", "//" },
	{ "https://", "no host" },
	{ "https:///x", "no host" },
	{ "//github.com/", "scheme" },
	{ "", "scheme" },
	{ "github.com", "scheme" },
	{ "https://git_hub.com/", "character" },
};

Test(url_check, taken_as_a_browser_serialises_them)
{
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		struct cordon_error why = {};

		cr_assert_eq(url_parse(taken[i].in, strlen(taken[i].in), &u, &why), 0, "%s: %s", taken[i].in,
			     why.message);
		cr_expect_str_eq(u.url, taken[i].url, "%s", taken[i].in);
		cr_expect_eq(u.len, strlen(taken[i].url));
		cr_expect_str_eq(u.origin, taken[i].origin, "%s", taken[i].in);
		cr_expect_eq(u.path_len, strlen(taken[i].path), "%s", taken[i].in);
		cr_expect_eq(memcmp(u.url + u.path_off, taken[i].path, u.path_len), 0, "%s", taken[i].in);
	}
}

Test(url_check, refused_with_the_rule)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct cordon_error why = {};

		cr_expect_lt(url_parse(refused[i].in, strlen(refused[i].in), &u, &why), 0, "%s was taken",
			     refused[i].in);
		cr_expect(strstr(why.message, refused[i].why), "%s: \"%s\" does not say %s", refused[i].in, why.message,
			  refused[i].why);
	}
}

Test(url_check, nul_and_size_cap)
{
	struct cordon_error why = {};
	size_t n = URL_MAX_BYTES + 1;
	char *big = malloc(n + 1);

	cr_assert_lt(url_parse("https://github.com/\0x", 21, &u, &why), 0);
	cr_expect(strstr(why.message, "NUL"));
	cr_assert(big);
	memcpy(big, "https://github.com/", 19);
	memset(big + 19, 'a', n - 19);
	big[n] = '\0';
	cr_expect_eq(url_parse(big, n, &u, &why), -E2BIG);
	cr_expect_eq(url_parse(big, n - 1, &u, &why), 0, "%s", why.message);
	free(big);
}

Test(url_check, origins_for_a_profile)
{
	char o[URL_ORIGIN_MAX];
	struct cordon_error why;

	cr_expect_eq(url_origin_check("https://github.com", o, &why), 0);
	cr_expect_str_eq(o, "https://github.com");
	cr_expect_eq(url_origin_check("https://example.com:8443", o, &why), 0);
	cr_expect_str_eq(o, "https://example.com:8443");
	cr_expect_lt(url_origin_check("https://github.com/", o, &why), 0);
	cr_expect_lt(url_origin_check("http://github.com", o, &why), 0);
	cr_expect_lt(url_origin_check("https://GitHub.com", o, &why), 0);
	cr_expect_lt(url_origin_check("https://github.com:443", o, &why), 0);
	cr_expect_lt(url_origin_check("https://127.0.0.1", o, &why), 0);
	cr_expect_lt(url_origin_check("https://github.com.", o, &why), 0);
	cr_expect_lt(url_origin_check("github.com", o, &why), 0);
}

Test(url_check, path_prefixes)
{
	struct cordon_error why;

	cr_assert_eq(url_parse("https://github.com/login/device?x", 33, &u, &why), 0);
	cr_expect(url_path_under(&u, "/login"));
	cr_expect(url_path_under(&u, "/login/"));
	cr_expect(url_path_under(&u, "/login/device"));
	cr_expect(url_path_under(&u, "/"));
	cr_expect_not(url_path_under(&u, "/log"));
	cr_expect_not(url_path_under(&u, "/login/device/"));
	cr_expect_not(url_path_under(&u, "/other"));
	cr_expect_eq(url_path_prefix_check("/login/", &why), 0);
	cr_expect_lt(url_path_prefix_check("login", &why), 0);
	cr_expect_lt(url_path_prefix_check("/a/../b", &why), 0);
	cr_expect_lt(url_path_prefix_check("/a?b", &why), 0);
}
