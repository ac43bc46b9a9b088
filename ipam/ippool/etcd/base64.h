/* SPDX-License-Identifier: Apache-2.0 */
/* Standard padded base64, the encoding etcd's JSON gateway gives keys and values. */
#pragma once

/* The base64 of the bytes of s up to its NUL, malloc'd; NULL when out of memory. */
char *base64_encode(const char *s);
/* Decodes padded standard base64 into a malloc'd NUL-terminated string;
 * NULL + EINVAL on bad input, a NUL byte among them: none of our keys or
 * values has one, and a string cut at it would be another key. */
char *base64_decode(const char *s);
