/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl loaded at run time, for https:// etcd endpoints only. */
#pragma once

#include <curl/curl.h>
#include "err.h"

/* The libcurl functions the etcd client calls. */
struct libcurl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*perform)(CURL *curl);
	CURLcode (*getinfo)(CURL *curl, CURLINFO info, ...);
	void (*cleanup)(CURL *curl);
	const char *(*strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
};

/* Loads libcurl.so.4 and initializes it, once per process: 0 with *out the
 * table of its functions, or -ENOENT and CNI_ERR_STORE naming the package
 * to install. */
int libcurl_load(const struct libcurl **out, struct cni_err *err);
