/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a Python interpreter imports from, read from the files: the .pth
 * parser (pure) and the places below a prefix made in a temp directory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python_paths.h"
#include "strv.h"

static bool has(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

Test(python_paths, interpreter_names)
{
	cr_assert_eq(python_interpreter_name("python3.11"), 0);
	cr_assert_eq(python_interpreter_name("python3"), 0);
	cr_assert_eq(python_interpreter_name("python"), 0);
	cr_assert_eq(python_interpreter_name("python3-config"), -ENOENT);
	cr_assert_eq(python_interpreter_name("ipython3"), -ENOENT);
}

Test(python_paths, pth_lines)
{
	const char pth[] = "# comment\n\nimport os; os.system('x')\nimport\tsys\nrel/dir\r\n/abs/dir  \nimportant\n/abs/dir\n";
	char **v = calloc(1, sizeof(char *));

	cr_assert_eq(python_pth_paths(pth, sizeof(pth) - 1, "/site", &v), 0);
	cr_assert(has(v, "/site/rel/dir"), "relative to the site directory");
	cr_assert(has(v, "/abs/dir"), "absolute, trailing blanks stripped");
	cr_assert(has(v, "/site/important"), "'import' only as a word starts code");
	cr_assert_eq(strv_length(v), 3, "comments, blank and import lines are no paths; duplicates once");
	strv_free(v);
}

Test(python_paths, pth_caps)
{
	char *big = malloc(PTH_FILE_MAX + 1);
	char **v = calloc(1, sizeof(char *));

	memset(big, 'a', PTH_FILE_MAX + 1);
	cr_assert_eq(python_pth_paths(big, PTH_FILE_MAX + 1, "/s", &v), -EFBIG);
	/* more lines than PTH_LINES_MAX */
	for (size_t i = 0; i < PTH_FILE_MAX; i += 2)
		big[i] = 'a', big[i + 1] = '\n';
	cr_assert_eq(python_pth_paths(big, PTH_FILE_MAX, "/s", &v), -EFBIG);
	free(big);
	strv_free(v);
}

Test(python_paths, places_below_a_prefix)
{
	char dir[] = "/tmp/cordon-pyXXXXXX", path[512];
	char **v = NULL;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "mkdir -p %s/bin %s/lib/python3.11/site-packages %s/local/lib/python3.11/dist-packages",
		 dir, dir, dir);
	cr_assert_eq(system(path), 0);
	snprintf(path, sizeof(path), "%s/local/lib/python3.11/dist-packages/x.pth", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("/elsewhere/src\nimport y\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/bin/python3.11", dir);
	cr_assert_eq(python_module_places(path, &v), 0);
	snprintf(path, sizeof(path), "%s/lib/python3.11", dir);
	cr_assert(has(v, path), "the stdlib directory");
	snprintf(path, sizeof(path), "%s/local/lib/python3.11", dir);
	cr_assert(has(v, path), "local/lib");
	cr_assert(has(v, "/elsewhere/src"), "what a .pth adds");
	strv_free(v);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_assert_eq(system(path), 0);
}
