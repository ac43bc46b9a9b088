// SPDX-License-Identifier: Apache-2.0
/* Load and save the simulator's JSON state file under its lock file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "snapshot.h"
#include "state.h"

/* 8 PFs x 128 VFs with their devices take about 200 KiB */
#define STATE_MAX (16 << 20)
/* PROC_NET_INIT_INO in the kernel's include/linux/proc_ns.h. */
#define PROC_NET_INIT_INO 0xEFFFFFF9UL

static unsigned long ns_inode(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : st.st_ino;
}

unsigned long rdmasim_current_netns(void)
{
	return ns_inode("/proc/thread-self/ns/net");
}

/* /proc/1/ns/net needs ptrace access to pid 1, which sandboxes (and non-root
 * users) lack; then the fixed inode the kernel gives init_net stands in. */
unsigned long rdmasim_host_netns(void)
{
	unsigned long ino = ns_inode("/proc/1/ns/net");

	return ino ? ino : PROC_NET_INIT_INO;
}

/* The lock is taken and dropped with raw syscalls: the preload library
 * intercepts close(), and must not re-enter itself while it holds its own
 * mutex. */
int rdmasim_lock(const char *path)
{
	char lock[PATH_MAX];
	int fd;

	if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock))
		return -ENAMETOOLONG;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		int ret = -errno;

		syscall(SYS_close, fd);
		return ret;
	}
	return fd;
}

void rdmasim_unlock(int fd)
{
	if (fd >= 0)
		syscall(SYS_close, fd);
}

static char *read_all(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(STATE_MAX + 1);
	if (!buf)
		goto out;
	while ((n = read(fd, buf + len, STATE_MAX - len)) > 0)
		len += n;
	if (n < 0 || len == STATE_MAX) {
		free(buf);
		buf = NULL;
		errno = n < 0 ? errno : EFBIG;
		goto out;
	}
	buf[len] = '\0';
out:
	syscall(SYS_close, fd);
	return buf;
}

const uint8_t rdmasim_ipoib_bcast[RDMASIM_IPOIB_ALEN] = {
	0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
};

void rdmasim_ipoib_addr(uint32_t qpn, uint64_t guid, uint8_t out[RDMASIM_IPOIB_ALEN])
{
	memset(out, 0, RDMASIM_IPOIB_ALEN);
	out[1] = (uint8_t)(qpn >> 16);
	out[2] = (uint8_t)(qpn >> 8);
	out[3] = (uint8_t)qpn;
	out[4] = 0xfe;
	out[5] = 0x80;
	for (int i = 0; i < 8; i++)
		out[12 + i] = (uint8_t)(guid >> (56 - 8 * i));
}

void rdmasim_pf_addr(const struct rdmasim_pf *pf, uint8_t out[RDMASIM_IPOIB_ALEN])
{
	/* the PF's IPoIB QP number: any fixed one will do */
	rdmasim_ipoib_addr(0x48, pf->guid, out);
}

static int copy_str(char *dst, size_t size, const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= size)
		return -EINVAL;
	strcpy(dst, v->valuestring);
	return 0;
}

static int get_u32(uint32_t *dst, const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > UINT32_MAX)
		return -EINVAL;
	*dst = (uint32_t)v->valuedouble;
	return 0;
}

/* GUIDs are written as 16 hex digits: a JSON number cannot hold 64 bits. */
static int get_guid(uint64_t *dst, const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *end;

	if (!cJSON_IsString(v) || strlen(v->valuestring) != 16)
		return -EINVAL;
	errno = 0;
	*dst = strtoull(v->valuestring, &end, 16);
	return errno || *end ? -EINVAL : 0;
}

static cJSON *add_guid(cJSON *obj, const char *key, uint64_t guid)
{
	char text[17];

	snprintf(text, sizeof(text), "%016llx", (unsigned long long)guid);
	return cJSON_AddStringToObject(obj, key, text);
}

static int parse_netns(unsigned long *ino, const cJSON *obj, unsigned long host)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "netns");
	char *end;

	if (!cJSON_IsString(v))
		return -EINVAL;
	if (!strcmp(v->valuestring, "host")) {
		*ino = host;
		return 0;
	}
	errno = 0;
	*ino = strtoul(v->valuestring, &end, 10);
	return errno || *end || !*ino ? -EINVAL : 0;
}

static int parse_dev(struct rdmasim_dev *d, const cJSON *obj, unsigned long host)
{
	if (copy_str(d->name, sizeof(d->name), obj, "name") ||
	    get_u32(&d->index, obj, "index") ||
	    copy_str(d->pci, sizeof(d->pci), obj, "pci") ||
	    copy_str(d->ndev, sizeof(d->ndev), obj, "ndev") ||
	    get_u32(&d->ndev_index, obj, "ndev_index") ||
	    parse_netns(&d->netns, obj, host))
		return -EINVAL;
	d->soft = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "soft"));
	return 0;
}

static const struct {
	unsigned int op;
	const char *name;
} vf_ops[] = {
	{ VFOP_MAC, "mac" }, { VFOP_VLAN, "vlan" }, { VFOP_RATE, "rate" },
	{ VFOP_SPOOFCHK, "spoofchk" }, { VFOP_LINK_STATE, "link_state" }, { VFOP_TRUST, "trust" },
	{ VFOP_GUID, "guid" },
};

unsigned int rdmasim_vf_op(const char *name)
{
	for (size_t i = 0; i < sizeof(vf_ops) / sizeof(vf_ops[0]); i++)
		if (!strcmp(name, vf_ops[i].name))
			return vf_ops[i].op;
	return 0;
}

static int get_bool(bool *dst, const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsBool(v))
		return -EINVAL;
	*dst = cJSON_IsTrue(v);
	return 0;
}

static int parse_vf(struct rdmasim_vf *vf, const cJSON *obj)
{
	char mac[18];
	uint32_t proto;

	if (copy_str(mac, sizeof(mac), obj, "mac") ||
	    sscanf(mac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &vf->mac[0], &vf->mac[1], &vf->mac[2],
		   &vf->mac[3], &vf->mac[4], &vf->mac[5]) != 6 ||
	    get_u32(&vf->vlan, obj, "vlan") || get_u32(&vf->qos, obj, "qos") ||
	    get_u32(&proto, obj, "vlan_proto") || proto > UINT16_MAX ||
	    get_bool(&vf->spoofchk, obj, "spoofchk") || get_bool(&vf->trust, obj, "trust") ||
	    get_u32(&vf->link_state, obj, "link_state") ||
	    get_u32(&vf->min_tx_rate, obj, "min_tx_rate") ||
	    get_u32(&vf->max_tx_rate, obj, "max_tx_rate") ||
	    get_guid(&vf->node_guid, obj, "node_guid") || get_guid(&vf->port_guid, obj, "port_guid"))
		return -EINVAL;
	vf->vlan_proto = (uint16_t)proto;
	return 0;
}

static int parse_lacks(unsigned int *lacks, const cJSON *arr)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, arr) {
		unsigned int op = cJSON_IsString(v) ? rdmasim_vf_op(v->valuestring) : 0;

		if (!op)
			return -EINVAL;
		*lacks |= op;
	}
	return 0;
}

static int parse_pf(struct rdmasim_pf *pf, const cJSON *obj)
{
	const cJSON *vfs = cJSON_GetObjectItemCaseSensitive(obj, "vfs"), *v;

	if (copy_str(pf->name, sizeof(pf->name), obj, "name") ||
	    get_u32(&pf->ifindex, obj, "ifindex") || get_bool(&pf->ib, obj, "ib") ||
	    get_guid(&pf->guid, obj, "guid") ||
	    get_u32(&pf->getlink_error, obj, "getlink_error") || !cJSON_IsArray(vfs) ||
	    parse_lacks(&pf->lacks, cJSON_GetObjectItemCaseSensitive(obj, "lacks")))
		return -EINVAL;
	cJSON_ArrayForEach(v, vfs) {
		if (pf->n_vfs == RDMASIM_MAX_VFS || parse_vf(&pf->vfs[pf->n_vfs], v))
			return -EINVAL;
		pf->n_vfs++;
	}
	return 0;
}

static int parse(struct rdmasim_state *st, const cJSON *root)
{
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(root, "mode");
	const cJSON *devs = cJSON_GetObjectItemCaseSensitive(root, "devices");
	unsigned long host = rdmasim_host_netns();
	const cJSON *d;

	if (!cJSON_IsString(mode) || !cJSON_IsArray(devs))
		return -EINVAL;
	if (!strcmp(mode->valuestring, "shared"))
		st->shared = true;
	else if (strcmp(mode->valuestring, "exclusive"))
		return -EINVAL;
	cJSON_ArrayForEach(d, devs) {
		struct rdmasim_dev *dev = rdmasim_add(st);

		if (!dev)
			return -ENOMEM;
		if (parse_dev(dev, d, host))
			return -EINVAL;
	}
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(root, "pfs")) {
		if (st->n_pfs == RDMASIM_MAX_PFS || parse_pf(&st->pfs[st->n_pfs], d))
			return -EINVAL;
		st->n_pfs++;
	}
	return 0;
}

/* Parsed once per version of the file: the snapshot serves the requests
 * until a writer replaces it. */
int rdmasim_load(const char *path, struct rdmasim_state *st)
{
	struct stat json;
	cJSON *root = NULL;
	char *text;
	int ret;

	memset(st, 0, sizeof(*st));
	if (stat(path, &json) < 0)
		return -errno;
	if (!rdmasim_snapshot_read(path, &json, st))
		return 0;
	text = read_all(path);
	if (!text)
		return -errno;
	root = cJSON_Parse(text);
	ret = root ? parse(st, root) : -EINVAL;
	cJSON_Delete(root);
	free(text);
	st->json = json;
	if (!ret)
		rdmasim_snapshot_write(path, &json, st, NULL);
	return ret;
}

static cJSON *vf_json(const struct rdmasim_vf *vf)
{
	cJSON *o = cJSON_CreateObject();
	char mac[18];

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", vf->mac[0], vf->mac[1],
		 vf->mac[2], vf->mac[3], vf->mac[4], vf->mac[5]);
	if (!o || !cJSON_AddStringToObject(o, "mac", mac) ||
	    !cJSON_AddNumberToObject(o, "vlan", vf->vlan) ||
	    !cJSON_AddNumberToObject(o, "qos", vf->qos) ||
	    !cJSON_AddNumberToObject(o, "vlan_proto", vf->vlan_proto) ||
	    !cJSON_AddBoolToObject(o, "spoofchk", vf->spoofchk) ||
	    !cJSON_AddBoolToObject(o, "trust", vf->trust) ||
	    !cJSON_AddNumberToObject(o, "link_state", vf->link_state) ||
	    !cJSON_AddNumberToObject(o, "min_tx_rate", vf->min_tx_rate) ||
	    !cJSON_AddNumberToObject(o, "max_tx_rate", vf->max_tx_rate) ||
	    !add_guid(o, "node_guid", vf->node_guid) || !add_guid(o, "port_guid", vf->port_guid)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *pf_json(const struct rdmasim_pf *pf)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *lacks = cJSON_AddArrayToObject(o, "lacks");
	cJSON *vfs = cJSON_AddArrayToObject(o, "vfs");
	size_t i;
	int n;

	if (!o || !lacks || !vfs || !cJSON_AddStringToObject(o, "name", pf->name) ||
	    !cJSON_AddNumberToObject(o, "ifindex", pf->ifindex) ||
	    !cJSON_AddBoolToObject(o, "ib", pf->ib) || !add_guid(o, "guid", pf->guid) ||
	    !cJSON_AddNumberToObject(o, "getlink_error", pf->getlink_error))
		goto fail;
	for (i = 0; i < sizeof(vf_ops) / sizeof(vf_ops[0]); i++) {
		if ((pf->lacks & vf_ops[i].op) &&
		    !cJSON_AddItemToArray(lacks, cJSON_CreateString(vf_ops[i].name)))
			goto fail;
	}
	for (n = 0; n < pf->n_vfs; n++) {
		cJSON *v = vf_json(&pf->vfs[n]);

		if (!v || !cJSON_AddItemToArray(vfs, v))
			goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* The devices are written by hand: building and printing a cJSON tree of a
 * thousand devices took 1.5 ms of every move (measured). */
struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = 2 * (t->len + n + 1) + 4096;
		char *buf = realloc(t->buf, cap);

		if (!buf) {
			t->failed = true;
			return;
		}
		t->buf = buf;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void put_s(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static bool plain(char c)
{
	return (unsigned char)c >= 0x20 && c != '"' && c != '\\';
}

/* A JSON string: quote, backslash and control characters escaped. */
static void put_str(struct text *t, const char *s)
{
	char esc[8];

	put_s(t, "\"");
	while (*s) {
		size_t run = 0;

		while (s[run] && plain(s[run]))
			run++;
		put(t, s, run);
		s += run;
		if (!*s)
			break;
		snprintf(esc, sizeof(esc), "\\u%04x", (unsigned char)*s++);
		put_s(t, esc);
	}
	put_s(t, "\"");
}

static void put_num(struct text *t, unsigned long v)
{
	char num[24], *p = num + sizeof(num);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(t, p, (size_t)(num + sizeof(num) - p));
}

static void put_dev(struct text *t, const struct rdmasim_dev *d, unsigned long host)
{
	put_s(t, "{\"name\":");
	put_str(t, d->name);
	put_s(t, ",\"index\":");
	put_num(t, d->index);
	put_s(t, ",\"pci\":");
	put_str(t, d->pci);
	put_s(t, ",\"ndev\":");
	put_str(t, d->ndev);
	put_s(t, ",\"ndev_index\":");
	put_num(t, d->ndev_index);
	if (d->soft)
		put_s(t, ",\"soft\":true");
	put_s(t, ",\"netns\":");
	if (d->netns == host) {
		put_s(t, "\"host\"}");
		return;
	}
	put_s(t, "\"");
	put_num(t, d->netns);
	put_s(t, "\"}");
}

static void put_pf(struct text *t, const struct rdmasim_pf *pf, bool first)
{
	cJSON *o = pf_json(pf);
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	if (!text) {
		t->failed = true;
	} else {
		put_s(t, first ? ",\"pfs\":[" : ",");
		put_s(t, text);
	}
	free(text);
	cJSON_Delete(o);
}

/* offs (n + 1 entries, or NULL): where each device's object starts (with
 * the comma before it), and where the last one ends. */
static char *compact(const struct rdmasim_state *st, uint32_t *offs)
{
	unsigned long host = rdmasim_host_netns();
	struct text t = { 0 };

	put_s(&t, st->shared ? "{\"mode\":\"shared\",\"devices\":[" :
			       "{\"mode\":\"exclusive\",\"devices\":[");
	for (int i = 0; i < st->n; i++) {
		if (offs)
			offs[i] = (uint32_t)t.len;
		if (i)
			put_s(&t, ",");
		put_dev(&t, &st->devs[i], host);
	}
	if (offs)
		offs[st->n] = (uint32_t)t.len;
	put_s(&t, "]");
	for (int i = 0; i < st->n_pfs; i++)
		put_pf(&t, &st->pfs[i], i == 0);
	put_s(&t, st->n_pfs ? "]}\n" : "}\n");
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}

char *rdmasim_json(const struct rdmasim_state *st, bool pretty)
{
	char *text = compact(st, NULL), *out;
	cJSON *root;

	if (!text || !pretty)
		return text;
	root = cJSON_Parse(text);
	out = root ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	free(text);
	return out;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

void rdmasim_mark(struct rdmasim_state *st, const struct rdmasim_dev *d)
{
	int i = (int)(d - st->devs);

	st->only = st->marked && st->only != i ? -1 : i;
	st->marked = true;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The JSON file read at load with the one marked device's object written
 * anew: a move, in a world of a thousand devices, without printing them all
 * (that was most of a move's cost). NULL when it cannot be done that way. */
static char *patched(const char *path, const struct rdmasim_state *st, uint32_t *offs)
{
	int i = st->only, n = st->n;
	struct text frag = { 0 }, out = { 0 };
	struct stat now;
	char *old = NULL;
	size_t old_len;

	if (!st->marked || i < 0 || !st->offs || stat(path, &now) < 0 || !same_file(&now, &st->json))
		return NULL;
	old = read_all(path);
	old_len = old ? strlen(old) : 0;
	if (!old || st->offs[n] > old_len || st->offs[i] > st->offs[i + 1])
		goto out;
	if (i)
		put_s(&frag, ",");
	put_dev(&frag, &st->devs[i], rdmasim_host_netns());
	put(&out, old, st->offs[i]);
	put(&out, frag.buf ? frag.buf : "", frag.len);
	put(&out, old + st->offs[i + 1], old_len - st->offs[i + 1]);
	for (int j = 0; j <= n; j++)
		offs[j] = j <= i ? st->offs[j] : st->offs[j] - st->offs[i + 1] + st->offs[i] +
			  (uint32_t)frag.len;
	if (frag.failed || out.failed) {
		free(out.buf);
		out.buf = NULL;
	}
out:
	free(frag.buf);
	free(old);
	return out.buf;
}

int rdmasim_save(const char *path, const struct rdmasim_state *st)
{
	uint32_t *offs = malloc((size_t)(st->n + 1) * sizeof(*offs));
	struct stat json;
	char tmp[PATH_MAX];
	char *text = NULL;
	int fd = -1, ret = -ENOMEM;
	bool patch;

	if (!offs)
		return ret;
	text = patched(path, st, offs);
	patch = text != NULL;
	if (!text)
		text = compact(st, offs);
	if (!text)
		goto out;
	ret = -ENAMETOOLONG;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	/* no fsync: the world has to survive killed processes, not a crash */
	ret = write_all(fd, text, strlen(text));
	if (!ret && fstat(fd, &json) < 0)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (!ret && (!patch || rdmasim_snapshot_update(path, &st->json, &json, st, offs, st->only)))
		rdmasim_snapshot_write(path, &json, st, offs);
out:
	if (fd >= 0)
		syscall(SYS_close, fd);
	if (ret && fd >= 0)
		unlink(tmp);
	free(text);
	free(offs);
	return ret;
}

/* Devices read from a snapshot move to the heap before the first is added. */
static int unmap(struct rdmasim_state *st)
{
	struct rdmasim_dev *devs;

	if (!st->map)
		return 0;
	devs = malloc((size_t)(st->n ? st->n : 1) * sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	memcpy(devs, st->devs, (size_t)st->n * sizeof(*devs));
	munmap(st->map, st->map_len);
	st->map = NULL;
	st->devs = devs;
	st->cap = st->n ? st->n : 1;
	return 0;
}

struct rdmasim_dev *rdmasim_add(struct rdmasim_state *st)
{
	if (unmap(st))
		return NULL;
	if (st->n == st->cap) {
		int cap = st->cap ? 2 * st->cap : 16;
		struct rdmasim_dev *devs = realloc(st->devs, (size_t)cap * sizeof(*devs));

		if (!devs)
			return NULL;
		st->devs = devs;
		st->cap = cap;
	}
	memset(&st->devs[st->n], 0, sizeof(st->devs[0]));
	return &st->devs[st->n++];
}

void rdmasim_free(struct rdmasim_state *st)
{
	if (st->map)
		munmap(st->map, st->map_len);
	else
		free(st->devs);
	free(st->offs);
	st->devs = NULL;
	st->offs = NULL;
	st->map = NULL;
	st->n = st->cap = 0;
}

struct rdmasim_dev *rdmasim_find(struct rdmasim_state *st, uint32_t index)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (st->devs[i].index == index)
			return &st->devs[i];
	return NULL;
}

struct rdmasim_pf *rdmasim_pf_find(struct rdmasim_state *st, uint32_t ifindex)
{
	for (int i = 0; i < st->n_pfs; i++)
		if (st->pfs[i].ifindex == ifindex)
			return &st->pfs[i];
	return NULL;
}

struct rdmasim_pf *rdmasim_pf_by_name(struct rdmasim_state *st, const char *name)
{
	for (int i = 0; i < st->n_pfs; i++)
		if (!strcmp(st->pfs[i].name, name))
			return &st->pfs[i];
	return NULL;
}

bool rdmasim_any_moved(const struct rdmasim_state *st)
{
	unsigned long host = rdmasim_host_netns();
	int i;

	for (i = 0; i < st->n; i++)
		if (st->devs[i].netns != host)
			return true;
	return false;
}
