/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * git's configuration file syntax from untrusted bytes, the way git's own
 * reader (config.c: get_base_var, get_extended_base_var, get_value,
 * parse_value) takes it, and its canonical form written back. One job:
 * bytes to entries and entries to bytes; what is safe is the caller's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "git_config_parse.h"

struct src {
	const char *p, *end;
};

struct buf {
	char *s;
	size_t len, cap;
};

/* git's get_next_char: "\r\n" reads as "\n"; the end reads as "\n". */
static int next_char(struct src *s, bool *eof)
{
	int c;

	if (s->p >= s->end) {
		*eof = true;
		return '\n';
	}
	c = (unsigned char)*s->p++;
	if (c == '\r' && s->p < s->end && *s->p == '\n')
		c = (unsigned char)*s->p++;
	return c;
}

static int buf_add(struct buf *b, char c)
{
	if (b->len + 2 > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		char *s = realloc(b->s, cap);

		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

static char *buf_take(struct buf *b)
{
	char *s = b->s ? b->s : strdup("");

	*b = (struct buf){};
	return s;
}

static bool is_key_char(int c)
{
	return isascii(c) && (isalnum(c) || c == '-');
}

/* After '[': the section, and the subsection of [s "sub"] or [s.sub]. */
static int parse_header(struct src *s, struct buf *sec, struct buf *sub, bool *has_sub)
{
	bool eof = false, dotted = false;
	int c, r;

	*has_sub = false;
	for (;;) {
		c = next_char(s, &eof);
		if (eof)
			return -EINVAL;
		if (c == ']')
			break;
		if (c == ' ' || c == '\t') {
			/* [section "subsection"] */
			do
				c = next_char(s, &eof);
			while (!eof && (c == ' ' || c == '\t'));
			if (eof || c != '"' || dotted)
				return -EINVAL;
			*has_sub = true;
			for (;;) {
				c = next_char(s, &eof);
				if (eof || c == '\n')
					return -EINVAL;
				if (c == '"')
					break;
				if (c == '\\') {
					c = next_char(s, &eof);
					if (eof || c == '\n')
						return -EINVAL;
				}
				if ((r = buf_add(sub, (char)c)) < 0)
					return r;
			}
			c = next_char(s, &eof);
			return eof || c != ']' || sec->len == 0 ? -EINVAL : 0;
		}
		if (c == '.' && !dotted) {
			/* the legacy [section.subsection]: all lower case */
			if (sec->len == 0)
				return -EINVAL;
			dotted = *has_sub = true;
			continue;
		}
		if (!is_key_char(c) && c != '.')
			return -EINVAL;
		if ((r = buf_add(dotted ? sub : sec, (char)tolower(c))) < 0)
			return r;
	}
	if (sec->len == 0 || (dotted && sub->len == 0))
		return -EINVAL;
	return 0;
}

/* After '=': git's parse_value. */
static int parse_value(struct src *s, struct buf *v)
{
	bool eof = false, quote = false, comment = false;
	size_t space = 0;
	int c, r;

	for (;;) {
		c = next_char(s, &eof);
		if (c == '\n') {
			if (quote)
				return -EINVAL;
			if (!v->s) {
				/* an empty value, not a bare key */
				if ((r = buf_add(v, 'x')) < 0)
					return r;
				v->s[v->len = 0] = '\0';
			}
			return 0;
		}
		if (comment)
			continue;
		if (isspace(c) && !quote) {
			if (v->len)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			if ((r = buf_add(v, ' ')) < 0)
				return r;
		if (c == '\\') {
			c = next_char(s, &eof);
			switch (c) {
			case '\n':
				if (eof)
					return -EINVAL;
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return -EINVAL;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if ((r = buf_add(v, (char)c)) < 0)
			return r;
	}
}

static int push(struct git_config *c, size_t *cap, const struct buf *sec, const struct buf *sub, bool has_sub,
		struct buf *key, struct buf *val, bool bare)
{
	struct git_config_entry *e;

	if (c->n >= GIT_CONFIG_PARSE_MAX_ENTRIES)
		return -EFBIG;
	if (c->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct git_config_entry *v = realloc(c->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		*cap = ncap;
	}
	e = &c->v[c->n];
	*e = (struct git_config_entry){
		.section = strndup(sec->s, sec->len),
		.subsection = has_sub ? strndup(sub->s ? sub->s : "", sub->len) : NULL,
		.key = buf_take(key),
		.value = bare ? NULL : buf_take(val),
	};
	c->n++;
	if (!e->section || (has_sub && !e->subsection) || !e->key || (!bare && !e->value))
		return -ENOMEM;
	return 0;
}

int git_config_parse(const char *text, size_t len, struct git_config *ret)
{
	struct git_config c = {};
	struct src s = { text, text + len };
	struct buf sec = {}, sub = {}, key = {}, val = {};
	bool has_sub = false, comment = false, eof = false;
	size_t cap = 0;
	int r = 0;

	if (len > GIT_CONFIG_PARSE_MAX_BYTES)
		return -EFBIG;
	if (memchr(text, '\0', len))
		return -EINVAL;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		s.p += 3;
	while (r == 0) {
		int ch = next_char(&s, &eof);

		if (ch == '\n') {
			if (eof)
				break;
			comment = false;
			continue;
		}
		if (comment || isspace(ch))
			continue;
		if (ch == '#' || ch == ';') {
			comment = true;
			continue;
		}
		if (ch == '[') {
			free(sec.s);
			free(sub.s);
			sec = sub = (struct buf){};
			r = parse_header(&s, &sec, &sub, &has_sub);
			continue;
		}
		if (!isascii(ch) || !isalpha(ch) || sec.len == 0) {
			r = -EINVAL;
			break;
		}
		/* a key: [a-z][a-z0-9-]*, then '=' and a value, or the line's end */
		while (r == 0 && is_key_char(ch)) {
			r = buf_add(&key, (char)tolower(ch));
			ch = next_char(&s, &eof);
		}
		while (ch == ' ' || ch == '\t')
			ch = next_char(&s, &eof);
		if (r < 0)
			break;
		if (ch == '\n') {
			r = push(&c, &cap, &sec, &sub, has_sub, &key, &val, true);
			if (eof)
				break;
			continue;
		}
		if (ch != '=') {
			r = -EINVAL;
			break;
		}
		r = parse_value(&s, &val);
		if (r == 0)
			r = push(&c, &cap, &sec, &sub, has_sub, &key, &val, false);
	}
	free(sec.s);
	free(sub.s);
	free(key.s);
	free(val.s);
	if (r < 0) {
		git_config_clear(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void git_config_clear(struct git_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].section);
		free(c->v[i].subsection);
		free(c->v[i].key);
		free(c->v[i].value);
	}
	free(c->v);
	*c = (struct git_config){};
}

void git_config_entry_name(const struct git_config_entry *e, char *buf, size_t size)
{
	if (e->subsection)
		snprintf(buf, size, "%s.%s.%s", e->section, e->subsection, e->key);
	else
		snprintf(buf, size, "%s.%s", e->section, e->key);
}

static int put_quoted(struct buf *b, const char *s, bool value)
{
	int r = buf_add(b, '"');

	for (; r == 0 && *s; s++) {
		char c = *s;

		if (!value && c == '\n')
			return -EINVAL;
		if (c == '\\' || c == '"')
			r = buf_add(b, '\\');
		else if (value && (c == '\n' || c == '\t' || c == '\b')) {
			r = buf_add(b, '\\');
			c = c == '\n' ? 'n' : c == '\t' ? 't' : 'b';
		}
		if (r == 0)
			r = buf_add(b, c);
	}
	return r < 0 ? r : buf_add(b, '"');
}

static int put_str(struct buf *b, const char *s)
{
	int r = 0;

	for (; r == 0 && *s; s++)
		r = buf_add(b, *s);
	return r;
}

static bool same_section(const struct git_config_entry *a, const struct git_config_entry *b)
{
	if (strcmp(a->section, b->section) != 0 || !a->subsection != !b->subsection)
		return false;
	return !a->subsection || strcmp(a->subsection, b->subsection) == 0;
}

int git_config_serialise(const struct git_config *c, char **ret, size_t *ret_len)
{
	struct buf b = {};
	int r = buf_add(&b, '\0');

	b.len = 0;
	for (size_t i = 0; r == 0 && i < c->n; i++) {
		const struct git_config_entry *e = &c->v[i];

		if (i == 0 || !same_section(e, &c->v[i - 1])) {
			r = put_str(&b, "[");
			if (r == 0)
				r = put_str(&b, e->section);
			if (r == 0 && e->subsection) {
				r = put_str(&b, " ");
				if (r == 0)
					r = put_quoted(&b, e->subsection, false);
			}
			if (r == 0)
				r = put_str(&b, "]\n");
		}
		if (r == 0)
			r = put_str(&b, "\t");
		if (r == 0)
			r = put_str(&b, e->key);
		if (r == 0 && e->value) {
			r = put_str(&b, " = ");
			if (r == 0)
				r = put_quoted(&b, e->value, true);
		}
		if (r == 0)
			r = put_str(&b, "\n");
	}
	if (r < 0) {
		free(b.s);
		return r;
	}
	*ret_len = b.len;
	*ret = b.s;
	return 0;
}
