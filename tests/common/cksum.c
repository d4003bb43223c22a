/* SPDX-License-Identifier: BSD-3-Clause */
#include "cksum.h"

uint32_t
rfc1071_sum(const uint8_t *b, size_t n, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	return sum;
}

uint16_t
rfc1071_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}
