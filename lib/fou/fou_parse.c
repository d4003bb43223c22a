/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pieces statements are made of: numbers, addresses and prefixes, IP
 * protocols, and a comma-separated argument copied for splitting. Text
 * layer, on the public headers; fou_stmt.c, fou_telemetry.c and the app
 * call it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_string_fns.h>

#include "fou_stmt.h"

int
fou_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -EINVAL;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

int
fou_parse_ip(const char *s, bool want_prefix, struct fou_ip *out, struct fou_err *err)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint32_t plen;

	if (rte_strscpy(buf, s, sizeof(buf)) < 0) {
		fou_err_set(err, "'%s' is not an IP address", s);
		return -EINVAL;
	}
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, &out->v4) == 1) {
		out->family = AF_INET;
	} else if (inet_pton(AF_INET6, buf, out->v6) == 1) {
		out->family = AF_INET6;
	} else {
		fou_err_set(err, "'%s' is not an IPv4 or IPv6 address", buf);
		return -EINVAL;
	}
	out->plen = out->family == AF_INET ? 32 : 128;
	if (slash == NULL)
		return 0;
	if (!want_prefix) {
		fou_err_set(err, "'%s': a prefix length is not allowed here", s);
		return -EINVAL;
	}
	if (fou_parse_u32(slash + 1, out->plen, &plen) < 0) {
		fou_err_set(err, "'%s': prefix length must be 0-%u", s, out->plen);
		return -EINVAL;
	}
	out->plen = (uint8_t)plen;
	return 0;
}

int
fou_parse_proto(const char *s, uint8_t *ipproto, struct fou_err *err)
{
	static const struct {
		const char *name;
		uint8_t proto;
	} names[] = {
		{ "ipip", IPPROTO_IPIP },
		{ "sit", IPPROTO_IPV6 },
		{ "ipv6", IPPROTO_IPV6 },
		{ "gre", IPPROTO_GRE },
	};
	uint32_t v;
	unsigned int i;

	for (i = 0; i < RTE_DIM(names); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*ipproto = names[i].proto;
			return 0;
		}
	}
	if (fou_parse_u32(s, UINT8_MAX, &v) < 0) {
		fou_err_set(err, "unknown protocol '%s' (ipip, sit, ipv6, gre or 1-255)", s);
		return -EINVAL;
	}
	*ipproto = (uint8_t)v;
	return 0;
}

int
fou_parse_fields_copy(char *buf, size_t len, const char *arg, struct fou_err *err)
{
	if (rte_strscpy(buf, arg, len) < 0) {
		fou_err_set(err, "argument longer than %zu characters", len - 1);
		return -E2BIG;
	}
	if (buf[0] == ',' || (buf[0] != '\0' && buf[strlen(buf) - 1] == ',') ||
	    strstr(buf, ",,") != NULL) {
		fou_err_set(err, "empty field in '%s'", arg);
		return -EINVAL;
	}
	return 0;
}
