/*
 * le.h - reading little-endian integers from bytes of a mapped file.
 *
 * The ELF, ld.so.cache and fatbin parsers read fields at any offset of a
 * mapping; these never assume alignment (a cast would be undefined
 * behaviour on unaligned offsets, which a malformed file can produce).
 * Callers check bounds first.
 *
 *	if (off + 8 <= size) phoff = le64(map + off);
 */
#ifndef GD_LE_H
#define GD_LE_H

#include <stdint.h>

static inline uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

#endif
