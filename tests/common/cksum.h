/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' own internet checksum (RFC 1071), shared by the unit tests and
 * the fuzz targets: the oracle the library's checksums are judged by, so it
 * never calls the library (nor DPDK's checksum code).
 */
#ifndef TEST_CKSUM_H
#define TEST_CKSUM_H

#include <stddef.h>
#include <stdint.h>

/* sum plus the big-endian 16-bit words of b[0..n), an odd last byte as
 * the high byte of a word; not folded. */
uint32_t rfc1071_sum(const uint8_t *b, size_t n, uint32_t sum);
/* The sum folded to 16 bits (end-around carries), not complemented. */
uint16_t rfc1071_fold(uint32_t sum);

#endif /* TEST_CKSUM_H */
