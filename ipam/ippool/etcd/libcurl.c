// SPDX-License-Identifier: Apache-2.0
/* libcurl loaded at run time, for https:// etcd endpoints only. */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "libcurl.h"

/* libcurl and its dependencies cost milliseconds to map at every exec: only
 * a process that talks to etcd over https loads it (the local store and
 * http:// never pay), and a node without https endpoints needs no libcurl. */
static struct libcurl cu;

static const struct {
	const char *name;
	size_t off;
} cu_syms[] = {
	{ "curl_global_init", offsetof(struct libcurl, global_init) },
	{ "curl_easy_init", offsetof(struct libcurl, easy_init) },
	{ "curl_easy_setopt", offsetof(struct libcurl, setopt) },
	{ "curl_easy_perform", offsetof(struct libcurl, perform) },
	{ "curl_easy_getinfo", offsetof(struct libcurl, getinfo) },
	{ "curl_easy_cleanup", offsetof(struct libcurl, cleanup) },
	{ "curl_easy_strerror", offsetof(struct libcurl, strerror) },
	{ "curl_slist_append", offsetof(struct libcurl, slist_append) },
	{ "curl_slist_free_all", offsetof(struct libcurl, slist_free_all) },
};

int libcurl_load(const struct libcurl **out, struct cni_err *err)
{
	static void *lib;
	size_t i;
	void *f;

	*out = NULL;
	if (lib) {
		*out = &cu;
		return 0;
	}
	lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	for (i = 0; lib && i < sizeof(cu_syms) / sizeof(cu_syms[0]); i++) {
		f = dlsym(lib, cu_syms[i].name);
		if (!f)
			break;
		memcpy((char *)&cu + cu_syms[i].off, &f, sizeof(f));
	}
	if (lib && i == sizeof(cu_syms) / sizeof(cu_syms[0]) && !cu.global_init(CURL_GLOBAL_DEFAULT)) {
		*out = &cu;
		return 0;
	}
	cni_err_set(err, CNI_ERR_STORE,
		    "cannot load libcurl.so.4, which https:// etcd endpoints need: install it on "
		    "the node (Debian/Ubuntu: libcurl4; RHEL/RHCOS/Fedora: libcurl or "
		    "libcurl-minimal): %s", dlerror() ?: "symbols missing or init failed");
	if (lib)
		dlclose(lib);
	lib = NULL;
	return -ENOENT;
}
