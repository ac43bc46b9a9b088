# SPDX-License-Identifier: Apache-2.0
"""Structural check of deploy/ (no cluster here): the manifests parse and name what a DaemonSet, a StatefulSet and an SR-IOV operator network need; TAP on stdout."""
import glob
import json
import os
import sys

import yaml

SRC = sys.argv[1]
n = 0
failed = 0


def check(cond, desc, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {desc}")
    if not cond:
        failed += 1
        if detail:
            print(f"# {detail}")
    return cond


def dig(obj, *path):
    for p in path:
        if isinstance(obj, dict):
            obj = obj.get(p)
        elif isinstance(obj, list) and isinstance(p, int) and p < len(obj):
            obj = obj[p]
        else:
            return None
    return obj


docs = []
for path in sorted(glob.glob(os.path.join(SRC, "deploy", "*.yaml"))):
    name = os.path.relpath(path, SRC)
    try:
        with open(path) as f:
            loaded = [d for d in yaml.safe_load_all(f) if d is not None]
        check(True, f"{name} parses as YAML ({len(loaded)} documents)")
    except yaml.YAMLError as e:
        check(False, f"{name} parses as YAML", str(e).replace("\n", " "))
        continue
    for d in loaded:
        check(all(dig(d, k) for k in ("apiVersion", "kind")) and dig(d, "metadata", "name"),
              f"{name}: {d.get('kind')} {dig(d, 'metadata', 'name')} has apiVersion, kind and a name")
        docs.append((name, d))


INSTALLER_OPTS = {"--from", "--to", "--conf-from", "--conf-to", "--dev", "--sleep", "--resync",
                  "--reconcile-interval", "--reconcile-grace", "--metrics-file", "--ippool-conf", "--once"}


def find(kind, name=None):
    return [d for _, d in docs if d.get("kind") == kind and (name is None or dig(d, "metadata", "name") == name)]


with open(os.path.join(SRC, "examples", "operator", "1-sriov-network-node-policy.yaml")) as f:
    policy = yaml.safe_load(f)


def pod_checks(what, obj):
    """What every workload controller needs: a selector its template's labels match, containers with images and resource requests."""
    sel = dig(obj, "spec", "selector", "matchLabels") or {}
    labels = dig(obj, "spec", "template", "metadata", "labels") or {}
    check(sel and all(labels.get(k) == v for k, v in sel.items()),
          f"{what}: spec.selector.matchLabels {sel} match the template's labels")
    spec = dig(obj, "spec", "template", "spec") or {}
    containers = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    check(len(spec.get("containers") or []) > 0, f"{what}: the template has containers")
    for c in containers:
        check(c.get("name") and c.get("image"), f"{what}: container {c.get('name')} has a name and an image")
        req = dig(c, "resources", "requests") or {}
        check("cpu" in req and "memory" in req, f"{what}: container {c.get('name')} requests cpu and memory")
        mounted = {m["name"] for m in c.get("volumeMounts") or []}
        declared = {v["name"] for v in spec.get("volumes") or []}
        declared |= {dig(t, "metadata", "name") for t in dig(obj, "spec", "volumeClaimTemplates") or []}
        check(mounted <= declared, f"{what}: container {c.get('name')} mounts only declared volumes",
              f"undeclared: {mounted - declared}")
    return spec, containers


# ---- the installer DaemonSet
ds = find("DaemonSet", "sriov-rdma-cni")
if check(len(ds) == 1, "deploy/ has the sriov-rdma-cni DaemonSet"):
    ds = ds[0]
    check(dig(ds, "metadata", "namespace") == "kube-system", "DaemonSet: in kube-system")
    spec, containers = pod_checks("DaemonSet", ds)
    check(spec.get("nodeSelector") == policy["spec"]["nodeSelector"],
          "DaemonSet: nodeSelector is the SriovNetworkNodePolicy's",
          f"{spec.get('nodeSelector')} vs {policy['spec']['nodeSelector']}")
    tol = {t.get("key") for t in spec.get("tolerations") or []}
    check("nvidia.com/gpu" in tol, "DaemonSet: tolerates the nvidia.com/gpu taint")
    vols = {v["name"]: v for v in spec.get("volumes") or []}
    cni = [v for v in vols.values() if dig(v, "hostPath", "path") == "/opt/cni/bin"]
    check(len(cni) == 1, "DaemonSet: a hostPath volume of /opt/cni/bin")
    for c in containers:
        args = c.get("args") or []
        to = [a.split("=", 1)[1] for a in args if a.startswith("--to=")]
        mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts") or []}
        check(cni and to and mounts.get(to[0]) == cni[0]["name"],
              f"DaemonSet: {c['name']} installs (--to) into the mount of /opt/cni/bin", f"args {args}")
        check(all(a.split("=", 1)[0] in INSTALLER_OPTS for a in args), f"DaemonSet: {c['name']} passes only installer options")
    check(any("--sleep" in (c.get("args") or []) for c in spec.get("containers") or []),
          "DaemonSet: the main container sleeps (--sleep)")
    agent = [c for c in spec.get("containers") or [] if c.get("name") == "agent"]
    if check(len(agent) == 1, "DaemonSet: the main container is the agent"):
        agent = agent[0]
        env = {e["name"]: e.get("value") for e in agent.get("env") or []}
        check(env.get("SRIOV_RDMA_RECONCILE_INTERVAL") == "60", "DaemonSet: the agent runs every 60 s",
              f"env {env}")
        margs = [a.split("=", 1)[1] for a in agent.get("args") or [] if a.startswith("--metrics-file=")]
        mounts = {m["mountPath"]: m for m in agent.get("volumeMounts") or []}
        paths = {n: dig(v, "hostPath", "path") for n, v in vols.items()}

        def host_of(path):
            """The host path a container path is, through the agent's mounts."""
            best = max((m for m in mounts if path == m or path.startswith(m.rstrip("/") + "/")), key=len, default=None)
            return best and paths.get(mounts[best]["name"]) and paths[mounts[best]["name"]] + path[len(best):]
        check(margs and host_of(margs[0]) == "/var/lib/node_exporter/textfile_collector/sriov-rdma.prom",
              "DaemonSet: the metrics file lands in node_exporter's textfile directory", f"{margs}")
        for path in ("/var/run/netns", "/run/netns"):
            m = mounts.get(path, {})
            check(host_of(path) == "/run/netns" and m.get("readOnly") is True
                  and m.get("mountPropagation") == "HostToContainer",
                  f"DaemonSet: the agent sees pod netns {path} read-only, with HostToContainer propagation")
        for path in ("/run/sriov-rdma", "/var/lib/cni/sriov-rdma", "/var/lib/cni/ippool"):
            check(host_of(path) == path and not mounts.get(path, {}).get("readOnly"),
                  f"DaemonSet: the agent writes the host's {path}")
        check(spec.get("hostPID") is True, "DaemonSet: the host's /proc (hostPID) for /proc/PID/ns/net netns paths")
        check(dig(agent, "securityContext", "privileged") is True,
              "DaemonSet: the agent has the privileges a DEL has (privileged)")
        check(host_of("/lib64") == "/usr/lib64" and host_of("/lib") == "/usr/lib",
              "DaemonSet: the agent runs the installed plugins with the node's C library")
    check(all("--sleep" not in (c.get("args") or []) for c in spec.get("initContainers") or []),
          "DaemonSet: the init container exits")
    check(dig(ds, "spec", "updateStrategy", "type") == "RollingUpdate", "DaemonSet: rolling updates")

# ---- the etcd StatefulSet and what wires ippool to it
sts = find("StatefulSet", "ippool-etcd")
if check(len(sts) == 1, "deploy/ has the ippool-etcd StatefulSet"):
    sts = sts[0]
    check(dig(sts, "spec", "replicas") == 3, "StatefulSet: three members")
    svc = find("Service", dig(sts, "spec", "serviceName"))
    check(len(svc) == 1 and dig(svc[0], "spec", "clusterIP") == "None",
          "StatefulSet: serviceName is a headless Service in deploy/")
    spec, containers = pod_checks("StatefulSet", sts)
    cmd = (containers[0].get("command") or []) + (containers[0].get("args") or [])
    flags = {a.split("=", 1)[0]: (a.split("=", 1) + [""])[1] for a in cmd if a.startswith("--")}
    for f in ("--client-cert-auth", "--trusted-ca-file", "--cert-file", "--key-file",
              "--peer-client-cert-auth", "--peer-trusted-ca-file", "--peer-cert-file", "--peer-key-file"):
        check(f in flags, f"StatefulSet: etcd runs with {f}")
    check(flags.get("--listen-client-urls", "").startswith("https://"), "StatefulSet: clients speak TLS")
    members = flags.get("--initial-cluster", "").split(",")
    check(len(members) == 3 and all(m.split("=", 1)[1].startswith("https://") for m in members),
          "StatefulSet: the initial cluster names three members, over TLS")
    secret = [v for v in spec.get("volumes") or [] if dig(v, "secret", "secretName") == "ippool-etcd-tls"]
    check(len(secret) == 1, "StatefulSet: the members' certificates come from the ippool-etcd-tls Secret")
    conf = find("ConfigMap", "ippool-conf")
    if check(len(conf) == 1, "deploy/ has the ippool-conf ConfigMap"):
        store = json.loads(conf[0]["data"]["ippool.conf"])["store"]
        client = find("Service", "ippool-etcd-client")
        ip = dig(client[0], "spec", "clusterIP") if client else None
        check(store["type"] == "etcd" and store["endpoints"] == [f"https://{ip}:2379"],
              "ippool.conf points at the ippool-etcd-client Service's address, over TLS")
        dsvols = {v["name"]: v for v in dig(ds, "spec", "template", "spec", "volumes") or []} if ds else {}
        projected = dig(dsvols.get("ippool-conf", {}), "projected", "sources") or []
        shipped = {i["path"] for s in projected for i in (dig(s, "secret", "items") or []) + (dig(s, "configMap", "items") or [])}
        conf_dir = [dig(v, "hostPath", "path") for v in dsvols.values() if dig(v, "hostPath", "path") == "/etc/cni/net.d/ippool.d"]
        for key in ("cacert", "cert", "key"):
            d, _, base = store[key].rpartition("/")
            check(conf_dir and d == conf_dir[0] and base in shipped,
                  f"ippool.conf's {key} is a file the DaemonSet copies into /etc/cni/net.d/ippool.d", store[key])
        secrets = [s for s in projected if dig(s, "secret", "name") == "ippool-etcd-client"]
        check(len(secrets) == 1, "the DaemonSet takes ippool's client certificate from the ippool-etcd-client Secret")

# ---- SriovNetworks chaining sriov-rdma after the operator's sriov
nets = find("SriovNetwork")
check(len(nets) > 0, "deploy/ has SriovNetwork examples")
for net in nets:
    name = dig(net, "metadata", "name")
    spec = net.get("spec") or {}
    check(spec.get("resourceName") == policy["spec"]["resourceName"],
          f"SriovNetwork {name}: resourceName is the policy's ({policy['spec']['resourceName']})")
    # what the operator renders (bindata/manifests/cni-config/sriov): the meta
    # plugins follow the sriov plugin in the list, verbatim
    rendered = ('{"cniVersion":"1.0.0","name":"%s","plugins":[{"type":"sriov","vlan":%d,"ipam":%s},%s]}'
                % (name, spec.get("vlan", 0), spec.get("ipam") or "{}", spec.get("metaPlugins") or ""))
    try:
        plugins = json.loads(rendered)["plugins"]
        check(True, f"SriovNetwork {name}: the rendered configuration list is JSON")
    except ValueError as e:
        check(False, f"SriovNetwork {name}: the rendered configuration list is JSON", str(e))
        continue
    check(plugins[0]["type"] == "sriov" and plugins[1].get("type") == "sriov-rdma",
          f"SriovNetwork {name}: sriov-rdma is chained right after sriov")
    check(dig(plugins[1], "capabilities", "CNIDeviceInfoFile") is True,
          f"SriovNetwork {name}: sriov-rdma asks for the CNIDeviceInfoFile capability")
    check(dig(plugins[0], "ipam", "type") == "ippool", f"SriovNetwork {name}: ippool hands out the addresses")

# ---- the agent on a node without Kubernetes: systemd unit and timer
def unit(name):
    """A systemd unit file as {section: {key: value}}, continuation lines joined."""
    sections, cur = {}, None
    with open(os.path.join(SRC, "deploy", name)) as f:
        text = f.read().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            cur = sections.setdefault(line.strip("[]"), {})
        else:
            k, _, v = line.partition("=")
            cur[k] = v
    return sections


service, timer = unit("sriov-rdma-agent.service"), unit("sriov-rdma-agent.timer")
argv = service["Service"]["ExecStart"].split()
check(argv[0].endswith("/sriov-rdma-install") and "--once" in argv and service["Service"].get("Type") == "oneshot",
      "systemd: the service runs one agent pass (--once, Type=oneshot)", f"{argv}")
check(all(a.split("=", 1)[0] in INSTALLER_OPTS for a in argv[1:] if a.startswith("--")),
      "systemd: the service passes only installer options", f"{argv}")
interval = argv[argv.index("--reconcile-interval") + 1] if "--reconcile-interval" in argv else None
check(interval and timer["Timer"].get("OnUnitActiveSec") == interval + "s",
      "systemd: the timer's period is the --reconcile-interval the doctor judges by",
      f"{interval} vs {timer['Timer'].get('OnUnitActiveSec')}")
check(timer.get("Install", {}).get("WantedBy") == "timers.target", "systemd: the timer is enabled by timers.target")

print(f"1..{n}")
sys.exit(1 if failed else 0)
