#!/usr/bin/python3
"""A fake Kubernetes API server for hetbench's tests and benchmarks.

Serves a subset of the Kubernetes REST API (pods, services, batch/v1 Jobs,
Kueue Workloads, Graphcore IPUJobs, any custom resource) over real HTTPS with
token and client certificate authentication, and simulates a controller, Kueue,
Graphcore's IPU Operator and a kubelet that really runs each pod's first
container as a local process.

    /usr/bin/python3 tests/k8s/fake_apiserver.py --dir DIR [--port N]
        [--pod-start-delay S] [--admit-delay S] [--max-active-jobs N]
        [--node-capacity JSON] [--ipujob-queue-delay S]

See docs/k8s-fake-apiserver.md for the files it writes, the scenarios it
simulates and the control endpoints (/fake/...). Standard library only.
"""

import argparse
import base64
import copy
import http.server
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import uuid

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
OWNER_LABEL = "fake.hetbench.io/owner"
INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
KUEUE_GV = "kueue.x-k8s.io/v1beta1"
JOBS = ("batch/v1", "jobs")
PODS = ("v1", "pods")
WORKLOADS = (KUEUE_GV, "workloads")
# Graphcore's IPU Operator (ipu-operator Helm chart 1.2.0, crds/graphcore.ai_ipujobs.yaml):
# group, plural and kind of its custom resource; the state is status.launcherStatus.
IPUJOB_GROUP, IPUJOB_PLURAL, IPUJOB_GV = "graphcore.ai", "ipujobs", "graphcore.ai/v1alpha1"
# The label the fake operator puts on worker pods, valued with the IPUJob's name. An
# assumption: the real operator's own pod labels are not documented publicly.
IPUJOB_LABEL = "ipujob"
IPUJOB_POD_RESTART = {"Never": "Never", "OnFailure": "OnFailure", "Always": "Always", "ExitCode": "Never"}
HOLD_QUEUE = "hold"
HOLD_MESSAGE = ("couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu "
                "in flavor default-flavor")
DEFAULT_CAPACITY = {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8", "amd.com/gpu": "8",
                    "ephemeral-storage": "1Ti", "pods": "110"}
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # what the apiserver uses for generateName
TICK_S = 0.05
KILL_GRACE_S = 1.0
NODE_NAME = "fake-node"
LOCAL_IP = "127.0.0.1"
# The kubelet's stand-in: runs the container's argv ("$@"), then publishes its
# exit status atomically in the .exit file ($0).
WRAPPER = '"$@"; rc=$?; echo $rc > "$0.tmp" && mv -f "$0.tmp" "$0"'

KINDS = {("v1", "pods"): "Pod", ("v1", "services"): "Service", ("v1", "configmaps"): "ConfigMap",
         ("v1", "secrets"): "Secret", ("v1", "events"): "Event", ("v1", "namespaces"): "Namespace",
         ("v1", "serviceaccounts"): "ServiceAccount", ("v1", "nodes"): "Node",
         ("v1", "persistentvolumeclaims"): "PersistentVolumeClaim", JOBS: "Job", WORKLOADS: "Workload",
         (IPUJOB_GV, IPUJOB_PLURAL): "IPUJob"}
REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
           405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType",
           422: "Invalid", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
           504: "Timeout"}
DEFAULT_MESSAGES = {429: "Too many requests, please try again later.",
                    500: "Internal error occurred: injected by the fake apiserver",
                    503: "the server is currently unable to handle the request",
                    504: "the server was unable to return a response in the time allotted"}

DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
QUANTITY = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?")
SUFFIX = {None: 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
          "P": 1e15, "E": 1e18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50,
          "Ei": 2**60}


# ----------------------------------------------------------------- helpers

def ts(t=None):
    """RFC 3339 timestamp, as the apiserver writes them."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if t is None else t))


def parse_quantity(q):
    """A Kubernetes quantity ("500m", "4Gi", "1G", 2) as a float; ValueError if malformed."""
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        return float(q)
    m = QUANTITY.fullmatch(str(q).strip())
    if not m:
        raise ValueError(q)
    suffix = m.group(2)
    if suffix and suffix[0] in "eE":
        return float(m.group(1) + suffix)
    return float(m.group(1)) * SUFFIX[suffix]


def expand(s, env):
    """Kubernetes' $(VAR) expansion of command, args and env values: $(NAME) is
    replaced when NAME is defined, $$ becomes $, anything else is kept."""
    out, i, n = [], 0, len(s)
    while i < n:
        if s[i] == "$" and i + 1 < n:
            nxt = s[i + 1]
            if nxt == "$":
                out.append("$")
            elif nxt == "(":
                j = s.find(")", i + 2)
                if j >= 0:
                    name = s[i + 2:j]
                    out.append(env[name] if name in env else "$(" + name + ")")
                    i = j + 1
                    continue
                out.append("$(")
            else:
                out.append("$" + nxt)
            i += 2
            continue
        out.append(s[i])
        i += 1
    return "".join(out)


def split_top(s):
    """Splits a selector on the commas that are not inside parentheses."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_selector(s):
    """Label selector: a=b, a==b, a!=b, a, !a, a in (x,y), a notin (x)."""
    reqs = []
    for term in split_top(s or ""):
        m = re.fullmatch(r"([^\s!=(),]+)\s+(in|notin)\s+\((.*)\)", term)
        if m:
            reqs.append((m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",") if v.strip()}))
            continue
        m = re.fullmatch(r"([^\s!=(),]+)\s*(==|=|!=)\s*([^\s=!(),]*)", term)
        if m:
            reqs.append((m.group(1), "!=" if m.group(2) == "!=" else "=", m.group(3)))
            continue
        m = re.fullmatch(r"(!?)\s*([^\s!=(),]+)", term)
        if m:
            reqs.append((m.group(2), "!" if m.group(1) else "exists", None))
            continue
        raise ApiError(400, f"unable to parse requirement: {term!r}")
    return reqs


def selector_matches(values, reqs):
    for key, op, val in reqs:
        have = values.get(key)
        if op == "=" and have != val:
            return False
        if op == "!=" and have == val:
            return False
        if op == "exists" and key not in values:
            return False
        if op == "!" and key in values:
            return False
        if op == "in" and have not in val:
            return False
        if op == "notin" and have in val:
            return False
    return True


def field_values(obj, reqs):
    out = {}
    for key, _, _ in reqs:
        cur = obj
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        if cur is not None:
            out[key] = str(cur)
    return out


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch (also used for strategic merge patches)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    target = target if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target


def set_cond(conds, ctype, status, reason=None, message=None, t=None):
    """Sets a condition in a conditions list; True if it changed."""
    for c in conds:
        if c.get("type") == ctype:
            if c.get("status") == status and c.get("reason") == reason and c.get("message") == message:
                return False
            if c.get("status") != status:
                c["lastTransitionTime"] = ts(t)
            c.update(status=status, lastProbeTime=ts(t))
            for k, v in (("reason", reason), ("message", message)):
                if v is None:
                    c.pop(k, None)
                else:
                    c[k] = v
            return True
    c = {"type": ctype, "status": status, "lastProbeTime": ts(t), "lastTransitionTime": ts(t)}
    if reason is not None:
        c["reason"] = reason
    if message is not None:
        c["message"] = message
    conds.append(c)
    return True


def cond_status(conds, ctype):
    for c in conds or []:
        if c.get("type") == ctype:
            return c.get("status")
    return None


def ranges(nums):
    """[0,1,2,4] -> "0-2,4" (Job status.completedIndexes)."""
    out, nums = [], sorted(set(nums))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ",".join(out)


def json_type(v):
    """The JSON type of a value, as the apiserver's schema validation names it."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(v), "object")


def is_ipujob(gv, plural):
    return group_of(gv) == IPUJOB_GROUP and plural == IPUJOB_PLURAL


def public(obj):
    """The object as the API shows it (without the simulator's private state)."""
    return {k: v for k, v in obj.items() if k != "_fake"}


def group_of(gv):
    return gv.split("/")[0] if "/" in gv else ""


def resource_str(gv, plural):
    g = group_of(gv)
    return f"{plural}.{g}" if g else plural


def proc_starttime(pid):
    """(state, starttime) of a process from /proc, or None if there is none."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            s = fh.read()
    except OSError:
        return None
    rest = s[s.rfind(")") + 2:].split()
    return rest[0], rest[19]


def read_exit(path):
    try:
        with open(path) as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def unlink(*paths):
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass


class ApiError(Exception):
    """An error answered as a Kubernetes Status object."""

    def __init__(self, code, message, reason=None, details=None, headers=None):
        super().__init__(message)
        self.code, self.message = code, message
        self.reason = reason or REASONS.get(code, "Unknown")
        self.details, self.headers = details, headers or {}

    def status(self):
        s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": self.message, "reason": self.reason, "code": self.code}
        if self.details:
            s["details"] = self.details
        return s


def not_found(gv, plural, name):
    return ApiError(404, f'{resource_str(gv, plural)} "{name}" not found',
                    details={"name": name, "group": group_of(gv), "kind": plural})


class ConfigError(Exception):
    """A container that cannot be configured (CreateContainerConfigError)."""


class Raw:
    """A non-JSON response body (pod logs)."""

    def __init__(self, data, ctype="text/plain; charset=utf-8"):
        self.data, self.ctype = data, ctype


# ----------------------------------------------------------------- the cluster

class Cluster:
    """All objects and the simulated controllers. Every method runs under
    self.lock (the HTTP threads and the ticker share it)."""

    def __init__(self, root, args, capacity):
        self.root, self.args, self.capacity = root, args, capacity
        self.lock = threading.RLock()
        self.objects = {}                 # (gv, plural, namespace, name) -> object
        self.kinds = dict(KINDS)          # (gv, plural) -> kind
        self.rv = 0
        self.ip_counter = 0
        self.dirty = False
        self.procs = {}                   # pod uid -> Popen (only for pods this process started)
        self.reaping = []                 # Popens of finished pods not yet waited for
        self.killing = set()              # process groups sent SIGTERM, SIGKILL pending
        self.faults = []
        self.fault_lock = threading.Lock()
        self.port = 0
        self.stop = threading.Event()
        self.state_path = os.path.join(root, "state.json")
        self.pods_dir = os.path.join(root, "pods")
        self.work_dir = os.path.join(root, "work")

    # --- persistence

    def load(self):
        try:
            with open(self.state_path) as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return
        self.rv = data.get("resourceVersion", 0)
        self.ip_counter = data.get("ipCounter", 0)
        for gv, plural, kind in data.get("kinds", []):
            self.kinds[(gv, plural)] = kind
        for gv, plural, ns, name, obj in data.get("objects", []):
            self.objects[(gv, plural, ns, name)] = obj

    def save(self):
        if not self.dirty:
            return
        data = {"resourceVersion": self.rv, "ipCounter": self.ip_counter,
                "kinds": [[gv, p, k] for (gv, p), k in self.kinds.items()],
                "objects": [[*key, obj] for key, obj in self.objects.items()]}
        tmp = self.state_path + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(data, fh, separators=(",", ":"))
        os.replace(tmp, self.state_path)
        self.dirty = False

    def touch(self, obj):
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.dirty = True

    def insert(self, key, obj, t):
        meta = obj.setdefault("metadata", {})
        meta["name"] = key[3]
        if key[2]:
            meta["namespace"] = key[2]
        meta["uid"] = str(uuid.uuid4())
        meta["creationTimestamp"] = ts(t)
        meta.setdefault("generation", 1)
        obj.setdefault("_fake", {})["created"] = t
        self.objects[key] = obj
        self.touch(obj)

    def gen_name(self, gv, plural, ns, base):
        base = base[:58]
        while True:
            name = base + "".join(random.choice(NAME_ALPHABET) for _ in range(5))
            if (gv, plural, ns, name) not in self.objects:
                return name

    def kind_of(self, gv, plural):
        if (gv, plural) in self.kinds:
            return self.kinds[(gv, plural)]
        return (plural[:-1] if plural.endswith("s") else plural).capitalize()

    def owned_by(self, uid, plural_filter=None):
        out = []
        for key, obj in self.objects.items():
            if plural_filter and key[:2] != plural_filter:
                continue
            if any(r.get("uid") == uid for r in obj["metadata"].get("ownerReferences") or []):
                out.append((key, obj))
        return out

    def pod_base(self, pod):
        m = pod["metadata"]
        return os.path.join(self.pods_dir, f"{m['namespace']}_{m['name']}")

    # --- REST

    def api(self, method, path, query, body, ctype):
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        if parts[0] == "api":
            if len(parts) == 1:
                return 200, {"kind": "APIVersions", "versions": ["v1"]}
            gv, rest = parts[1], parts[2:]
        elif parts[0] == "apis":
            if len(parts) <= 2:
                groups = sorted({group_of(g) for g, _ in self.kinds if "/" in g} | {"batch", "kueue.x-k8s.io"})
                return 200, {"kind": "APIGroupList", "apiVersion": "v1",
                             "groups": [{"name": g} for g in groups if len(parts) == 1 or g == parts[1]]}
            gv, rest = parts[1] + "/" + parts[2], parts[3:]
        else:
            raise ApiError(404, "the server could not find the requested resource")
        if q.get("watch") in ("true", "1"):
            raise ApiError(400, "watch is not supported by the fake apiserver; poll instead")
        if not rest:
            return 200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                         "resources": [{"name": p, "namespaced": True, "kind": k}
                                       for (g, p), k in sorted(self.kinds.items()) if g == gv]}
        if gv == "v1" and rest[0] in ("namespaces", "nodes") and len(rest) <= 2:
            return self.cluster_scoped(method, rest, body)
        if rest[0] != "namespaces":
            if len(rest) == 1 and method == "GET":
                return 200, self.list(gv, rest[0], None, q)
            raise ApiError(404, "the server could not find the requested resource")
        if len(rest) < 3 or len(rest) > 5:
            raise ApiError(404, "the server could not find the requested resource")
        ns, plural = rest[1], rest[2]
        name = rest[3] if len(rest) > 3 else None
        sub = rest[4] if len(rest) > 4 else None
        if name is None:
            if method == "GET":
                return 200, self.list(gv, plural, ns, q)
            if method == "POST":
                return 201, self.create(gv, plural, ns, self.json_body(body))
            if method == "DELETE":
                return 200, self.delete_collection(gv, plural, ns, q, body)
        elif sub is None:
            if method == "GET":
                return 200, public(self.get(gv, plural, ns, name))
            if method == "DELETE":
                return 200, self.delete(gv, plural, ns, name, q, body)
            if method in ("PATCH", "PUT"):
                return 200, self.update(method, gv, plural, ns, name, self.json_body(body), ctype, None)
        elif sub == "log" and (gv, plural) == PODS and method == "GET":
            return 200, self.pod_log(ns, name, q)
        elif sub == "status":
            if method == "GET":
                return 200, public(self.get(gv, plural, ns, name))
            if method in ("PATCH", "PUT"):
                return 200, self.update(method, gv, plural, ns, name, self.json_body(body), ctype, "status")
        else:
            raise ApiError(404, "the server could not find the requested resource")
        raise ApiError(405, f"the server does not allow this method on the requested resource ({method})")

    @staticmethod
    def json_body(body):
        try:
            obj = json.loads(body.decode() or "null")
        except (ValueError, UnicodeDecodeError) as e:
            raise ApiError(400, f"the body of the request could not be decoded as JSON: {e}")
        if not isinstance(obj, dict):
            raise ApiError(400, "the body of the request must be a JSON object")
        return obj

    def cluster_scoped(self, method, rest, body):
        plural, t = rest[0], time.time()
        if plural == "nodes":
            node = {"kind": "Node", "apiVersion": "v1",
                    "metadata": {"name": NODE_NAME, "labels": {"kubernetes.io/hostname": NODE_NAME}},
                    "status": {"capacity": self.capacity, "allocatable": self.capacity,
                               "conditions": [{"type": "Ready", "status": "True"}],
                               "addresses": [{"type": "InternalIP", "address": LOCAL_IP}]}}
            if len(rest) == 1 and method == "GET":
                return 200, {"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": str(self.rv)},
                             "items": [node]}
            if len(rest) == 2 and method == "GET" and rest[1] == NODE_NAME:
                return 200, node
            raise not_found("v1", "nodes", rest[-1])

        def ns_obj(name):
            return {"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": name},
                    "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
        if len(rest) == 1 and method == "GET":
            names = {k[2] for k in self.objects if k[2]} | {"default", "hb-test", "kube-system"}
            return 200, {"kind": "NamespaceList", "apiVersion": "v1",
                         "metadata": {"resourceVersion": str(self.rv)}, "items": [ns_obj(n) for n in sorted(names)]}
        if len(rest) == 1 and method == "POST":
            name = (self.json_body(body).get("metadata") or {}).get("name")
            if not name:
                raise ApiError(422, "metadata.name: Required value", "Invalid")
            return 201, ns_obj(name)
        if len(rest) == 2 and method == "GET":
            return 200, ns_obj(rest[1])
        if len(rest) == 2 and method == "DELETE":   # removes everything in it at once
            for key in [k for k in self.objects if k[2] == rest[1]]:
                if key in self.objects:
                    self.remove(key, "Background", KILL_GRACE_S, user=False)
            out = ns_obj(rest[1])
            out["status"]["phase"] = "Terminating"
            return 200, out
        raise ApiError(405, f"the server does not allow this method on the requested resource ({method})")

    def get(self, gv, plural, ns, name):
        obj = self.objects.get((gv, plural, ns, name))
        if obj is None:
            raise not_found(gv, plural, name)
        return obj

    def list(self, gv, plural, ns, q):
        labels = parse_selector(q.get("labelSelector"))
        fields = parse_selector(q.get("fieldSelector"))
        items = []
        for key in sorted(k for k in self.objects if k[0] == gv and k[1] == plural and (ns is None or k[2] == ns)):
            obj = self.objects[key]
            if not selector_matches(obj["metadata"].get("labels") or {}, labels):
                continue
            if fields and not selector_matches(field_values(obj, fields), fields):
                continue
            item = public(obj)
            item["kind"], item["apiVersion"] = self.kind_of(gv, plural), gv
            items.append(item)
        return {"kind": self.kind_of(gv, plural) + "List", "apiVersion": gv,
                "metadata": {"resourceVersion": str(self.rv)}, "items": items}

    # --- create and validation

    def create(self, gv, plural, ns, obj):
        t = time.time()
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise ApiError(400, "metadata must be an object")
        if meta.get("namespace") not in (None, "", ns):
            raise ApiError(400, "the namespace of the provided object does not match the namespace sent on the request")
        if obj.get("kind") and (gv, plural) not in self.kinds:
            self.kinds[(gv, plural)] = obj["kind"]
        kind = self.kind_of(gv, plural)
        obj["kind"], obj["apiVersion"] = kind, gv
        name = meta.get("name")
        if not name:
            if not meta.get("generateName"):
                self.invalid(gv, kind, "", [("metadata.name", "Required value: name or generateName is required",
                                             "FieldValueRequired")])
            name = self.gen_name(gv, plural, ns, meta["generateName"])
        key = (gv, plural, ns, name)
        if key in self.objects:
            raise ApiError(409, f'{resource_str(gv, plural)} "{name}" already exists', "AlreadyExists",
                           details={"name": name, "group": group_of(gv), "kind": plural})
        errors = self.validate(gv, plural, name, obj)
        if errors:
            self.invalid(gv, kind, name, errors)
        if (gv, plural) == JOBS and self.args.max_active_jobs is not None:
            used = sum(1 for k, o in self.objects.items()
                       if k[:3] == (*JOBS, ns) and o["_fake"].get("finished") is None)
            limit = self.args.max_active_jobs
            if used >= limit:
                raise ApiError(403, f'jobs "{name}" is forbidden: exceeded quota: hb-quota, requested: '
                                    f'count/jobs.batch=1, used: count/jobs.batch={used}, limited: count/jobs.batch={limit}',
                               details={"name": name, "kind": "jobs"})
        for k in ("resourceVersion", "uid", "creationTimestamp", "deletionTimestamp"):
            meta.pop(k, None)
        obj.pop("status", None)
        obj.pop("_fake", None)
        self.insert(key, obj, t)
        if (gv, plural) == PODS:
            self.init_pod(obj)
        elif (gv, plural) == JOBS:
            self.init_job(obj, t)
        elif is_ipujob(gv, plural):
            self.init_ipujob(obj)
        elif (gv, plural) == ("v1", "services"):
            spec = obj.setdefault("spec", {})
            if spec.get("clusterIP") != "None":
                self.ip_counter += 1
                spec["clusterIP"] = f"10.96.{self.ip_counter // 250}.{self.ip_counter % 250 + 1}"
            obj["status"] = {"loadBalancer": {}}
        return public(obj)

    def invalid(self, gv, kind, name, errors):
        causes = [{"reason": r, "message": m, "field": f} for f, m, r in errors]
        texts = [f"{f}: {m}" for f, m, _ in errors]
        qual = f"{kind}.{group_of(gv)}" if group_of(gv) else kind
        msg = f'{qual} "{name}" is invalid: ' + (texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]")
        raise ApiError(422, msg, "Invalid", details={"name": name, "group": group_of(gv), "kind": kind,
                                                     "causes": causes})

    def validate(self, gv, plural, name, obj):
        errs = []
        pattern, limit = (DNS_1035, 63) if (gv, plural) == ("v1", "services") else \
            (DNS_SUBDOMAIN, 63 if (gv, plural) == JOBS else 253)
        if len(name) > limit:
            errs.append(("metadata.name", f'Invalid value: "{name}": must be no more than {limit} characters',
                         "FieldValueInvalid"))
        elif not pattern.fullmatch(name):
            errs.append(("metadata.name", f'Invalid value: "{name}": a lowercase RFC 1123 name must consist of '
                                          "lower case alphanumeric characters, '-' or '.'", "FieldValueInvalid"))
        errs += self.label_errors(obj.get("metadata", {}).get("labels"), "metadata.labels")
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        if (gv, plural) == PODS:
            errs += self.pod_spec_errors(spec, "spec", None)
        elif (gv, plural) == JOBS:
            tmpl = spec.get("template") if isinstance(spec.get("template"), dict) else {}
            tspec = tmpl.get("spec") if isinstance(tmpl.get("spec"), dict) else {}
            errs += self.label_errors((tmpl.get("metadata") or {}).get("labels"), "spec.template.metadata.labels")
            errs += self.pod_spec_errors(tspec, "spec.template.spec", ("OnFailure", "Never"))
            for f in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"):
                v = spec.get(f)
                if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                    errs.append((f"spec.{f}", f"Invalid value: {json.dumps(v)}: must be greater than or equal to 0",
                                 "FieldValueInvalid"))
            if spec.get("completionMode", "NonIndexed") not in ("NonIndexed", "Indexed"):
                errs.append(("spec.completionMode", f'Unsupported value: "{spec["completionMode"]}": supported '
                                                    'values: "NonIndexed", "Indexed"', "FieldValueNotSupported"))
            elif spec.get("completionMode") == "Indexed" and spec.get("completions") is None:
                errs.append(("spec.completions", "Required value: when completion mode is Indexed",
                             "FieldValueRequired"))
        elif is_ipujob(gv, plural):
            errs += self.ipujob_errors(obj.get("spec"))
        return errs

    @staticmethod
    def ipujob_errors(spec):
        """What the IPUJob CRD's schema (ipu-operator 1.2.0) refuses, in the
        apiserver's words; jobInstances below 1 and a worker template without
        containers are refused too (assumed to be the validating webhook's)."""
        errs = []

        def typed(path, v, want):
            got = json_type(v)
            if got == want:
                return True
            errs.append((path, f'Invalid value: "{got}": {path} in body must be of type {want}: "{got}"',
                         "FieldValueTypeInvalid"))
            return False

        def enum(path, v, allowed):
            if v not in allowed:
                errs.append((path, f'Unsupported value: {json.dumps(v)}: supported values: '
                             + ", ".join(f'"{a}"' for a in allowed), "FieldValueNotSupported"))
        if not isinstance(spec, dict):
            return [("spec", "Required value", "FieldValueRequired")] if spec is None else \
                [("spec", f'Invalid value: "{json_type(spec)}": spec in body must be of type object: '
                          f'"{json_type(spec)}"', "FieldValueTypeInvalid")]
        for f, want in (("jobInstances", "integer"), ("ipusPerJobInstance", "string"), ("workers", "object")):
            if f not in spec:
                errs.append((f"spec.{f}", "Required value", "FieldValueRequired"))
            elif typed(f"spec.{f}", spec[f], want) and f == "jobInstances" and spec[f] < 1:
                errs.append(("spec.jobInstances", f"Invalid value: {spec[f]}: must be greater than or equal to 1",
                             "FieldValueInvalid"))
        for f in ("workersPerJobInstance", "modelReplicasPerWorker"):
            if f in spec:
                typed(f"spec.{f}", spec[f], "string")
        if "cleanPodPolicy" in spec and typed("spec.cleanPodPolicy", spec["cleanPodPolicy"], "string"):
            enum("spec.cleanPodPolicy", spec["cleanPodPolicy"], ("None", "All", "Workers"))
        rp = spec.get("restartPolicy")
        if rp is not None and typed("spec.restartPolicy", rp, "object"):
            if "type" not in rp:
                errs.append(("spec.restartPolicy.type", "Required value", "FieldValueRequired"))
            elif typed("spec.restartPolicy.type", rp["type"], "string"):
                enum("spec.restartPolicy.type", rp["type"], tuple(IPUJOB_POD_RESTART))
            if "backOffLimit" in rp:
                typed("spec.restartPolicy.backOffLimit", rp["backOffLimit"], "integer")
        workers = spec.get("workers")
        if isinstance(workers, dict):
            if "replicas" in workers and typed("spec.workers.replicas", workers["replicas"], "integer") \
                    and workers["replicas"] < 1:
                errs.append(("spec.workers.replicas", f"Invalid value: {workers['replicas']}: "
                             "spec.workers.replicas in body should be greater than or equal to 1",
                             "FieldValueInvalid"))
            tmpl = workers.get("template")
            if "template" in workers and not typed("spec.workers.template", tmpl, "object"):
                return errs
            tspec = (tmpl or {}).get("spec")
            if tspec is not None and not typed("spec.workers.template.spec", tspec, "object"):
                return errs
            containers = (tspec or {}).get("containers")
            if not isinstance(containers, list) or not containers:
                errs.append(("spec.workers.template.spec.containers", "Required value", "FieldValueRequired"))
            else:
                for i, c in enumerate(containers):
                    if isinstance(c, dict) and not c.get("name"):
                        errs.append((f"spec.workers.template.spec.containers[{i}].name", "Required value",
                                     "FieldValueRequired"))
        return errs

    @staticmethod
    def label_errors(labels, field):
        errs = []
        if labels is None:
            return errs
        if not isinstance(labels, dict):
            return [(field, "Invalid value: must be a map of strings", "FieldValueInvalid")]
        for k, v in labels.items():
            name = k.rsplit("/", 1)[-1]
            if not name or len(name) > 63 or not LABEL_VALUE.fullmatch(name):
                errs.append((field, f'Invalid value: "{k}": name part must consist of alphanumeric characters, '
                                    "'-', '_' or '.', and must start and end with an alphanumeric character",
                             "FieldValueInvalid"))
            if not isinstance(v, str) or len(v) > 63 or not LABEL_VALUE.fullmatch(v):
                errs.append((field, f'Invalid value: "{v}": ' + ("must be no more than 63 characters"
                             if isinstance(v, str) and len(v) > 63 else "a valid label must be an empty string or "
                             "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                             "alphanumeric character"), "FieldValueInvalid"))
        return errs

    @staticmethod
    def pod_spec_errors(spec, field, allowed_restart):
        errs = []
        containers = spec.get("containers")
        if not isinstance(containers, list) or not containers:
            errs.append((f"{field}.containers", "Required value", "FieldValueRequired"))
        else:
            for i, c in enumerate(containers):
                cf = f"{field}.containers[{i}]"
                if not isinstance(c, dict):
                    errs.append((cf, "Invalid value: must be an object", "FieldValueInvalid"))
                    continue
                for f in ("name", "image"):
                    if not c.get(f):
                        errs.append((f"{cf}.{f}", "Required value", "FieldValueRequired"))
                for part in ("requests", "limits"):
                    for r, v in ((c.get("resources") or {}).get(part) or {}).items():
                        try:
                            parse_quantity(v)
                        except ValueError:
                            errs.append((f"{cf}.resources.{part}[{r}]", f'Invalid value: "{v}": must match the '
                                         "regex ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$", "FieldValueInvalid"))
        restart = spec.get("restartPolicy") or "Always"
        allowed = allowed_restart or ("Always", "OnFailure", "Never")
        if restart not in allowed:
            errs.append((f"{field}.restartPolicy", f'Unsupported value: "{restart}": supported values: '
                         + ", ".join(f'"{a}"' for a in allowed), "FieldValueNotSupported"))
        return errs

    # --- update and delete

    def update(self, method, gv, plural, ns, name, body, ctype, sub):
        obj = self.get(gv, plural, ns, name)
        if "json-patch" in (ctype or ""):
            raise ApiError(415, "the fake apiserver supports merge and strategic merge patches only",
                           "UnsupportedMediaType")
        want_rv = (body.get("metadata") or {}).get("resourceVersion")
        if want_rv and want_rv != obj["metadata"]["resourceVersion"] and method == "PUT":
            raise ApiError(409, f'Operation cannot be fulfilled on {resource_str(gv, plural)} "{name}": the object '
                                "has been modified; please apply your changes to the latest version and try again",
                           "Conflict", details={"name": name, "group": group_of(gv), "kind": plural})
        fixed = {k: obj["metadata"].get(k) for k in ("name", "namespace", "uid", "creationTimestamp")}
        if sub == "status":
            new = merge_patch(copy.deepcopy(obj.get("status")), body.get("status") or {}) \
                if method == "PATCH" else body.get("status") or {}
            obj["status"] = new
        else:
            current = public(copy.deepcopy(obj))
            if method == "PATCH":
                new = merge_patch(current, body)
            else:
                new = dict(body)
                new["status"] = current.get("status")
            if not isinstance(new.get("metadata"), dict):
                new["metadata"] = {}
            new["metadata"].update(fixed)
            new["kind"], new["apiVersion"] = obj["kind"], gv
            if new.get("spec") != obj.get("spec"):
                new["metadata"]["generation"] = obj["metadata"].get("generation", 1) + 1
            new["_fake"] = obj["_fake"]
            self.objects[(gv, plural, ns, name)] = obj = new
        self.touch(obj)
        return public(obj)

    def delete(self, gv, plural, ns, name, q, body):
        obj = self.get(gv, plural, ns, name)
        opts = {}
        if body and body.strip():
            opts = self.json_body(body)
        policy = opts.get("propagationPolicy") or q.get("propagationPolicy")
        if opts.get("orphanDependents") is True or q.get("orphanDependents") == "true":
            policy = policy or "Orphan"
        if policy not in (None, "Orphan", "Background", "Foreground"):
            raise ApiError(400, f"invalid propagationPolicy {policy!r}: must be Orphan, Background or Foreground")
        if policy is None:     # the batch/v1 REST default (kubectl asks for Background itself)
            policy = "Orphan" if (gv, plural) == JOBS else "Background"
        grace = opts.get("gracePeriodSeconds", q.get("gracePeriodSeconds"))
        grace = KILL_GRACE_S if grace is None or float(grace) > 0 else 0
        out = copy.deepcopy(public(obj))
        self.remove((gv, plural, ns, name), policy, grace, user=True)
        out["metadata"]["deletionTimestamp"] = ts()
        return out

    def delete_collection(self, gv, plural, ns, q, body):
        listed = self.list(gv, plural, ns, q)
        for item in listed["items"]:
            key = (gv, plural, ns, item["metadata"]["name"])
            if key in self.objects:
                self.delete(gv, plural, ns, key[3], q, body)
        return listed

    def remove(self, key, policy, grace, user):
        """Removes an object and, unless orphaned, what it owns (pods get killed)."""
        obj = self.objects.pop(key, None)
        if obj is None:
            return
        self.rv += 1
        self.dirty = True
        if key[:2] == PODS:
            f = obj["_fake"]
            if user and f.get("state") != "done" and not f.get("counted"):
                for ref in obj["metadata"].get("ownerReferences") or []:
                    for k, job in self.owned_lookup(ref.get("uid"), JOBS):
                        if job["_fake"].get("finished") is None:   # a deleted running pod counts as failed
                            job["_fake"]["failed"] += 1
                            f["counted"] = True
            self.stop_pod(obj, grace, remove_files=True)
        uid = obj["metadata"].get("uid")
        for dkey, dep in self.owned_by(uid):
            if policy == "Orphan" and dkey[:2] != WORKLOADS:
                refs = [r for r in dep["metadata"]["ownerReferences"] if r.get("uid") != uid]
                if refs:
                    dep["metadata"]["ownerReferences"] = refs
                else:
                    dep["metadata"].pop("ownerReferences")
                self.touch(dep)
            else:
                self.remove(dkey, "Background", grace, user=False)

    def owned_lookup(self, uid, kind):
        return [(k, o) for k, o in self.objects.items() if k[:2] == kind and o["metadata"].get("uid") == uid]

    # --- pods: the fake kubelet

    def init_pod(self, pod):
        spec = pod.setdefault("spec", {})
        spec.setdefault("restartPolicy", "Always")
        pod["status"] = {"phase": "Pending"}
        pod["_fake"].update(state="pending", restarts=0)
        base = self.pod_base(pod)
        unlink(base + ".log", base + ".log.prev", base + ".exit", base + ".exit.tmp")

    def insufficient(self, pod):
        need = {}
        for c in pod["spec"].get("containers") or []:
            res = c.get("resources") or {}
            req, lim = res.get("requests") or {}, res.get("limits") or {}
            for r in set(req) | set(lim):
                v = max(parse_quantity(req.get(r, 0)), parse_quantity(lim.get(r, 0)))
                need[r] = need.get(r, 0) + v
        return sorted(r for r, v in need.items() if v > 0 and v > parse_quantity(self.capacity.get(r, 0)) * (1 + 1e-12))

    def set_containers(self, pod, state, t, last=None):
        """Writes containerStatuses: the first container's state; the others
        (never run) mirror it, ending with exit code 0."""
        f = pod["_fake"]
        if last is None:
            last = (pod["status"].get("containerStatuses") or [{}])[0].get("lastState")
        out = []
        for i, c in enumerate(pod["spec"].get("containers") or []):
            st = copy.deepcopy(state)
            if i > 0 and "terminated" in st:
                st["terminated"].update(exitCode=0, reason="Completed")
                st["terminated"].pop("message", None)
            cs = {"name": c.get("name"), "image": c.get("image"), "imageID": "", "ready": "running" in st,
                  "restartCount": f.get("restarts", 0), "started": "running" in st, "state": st,
                  "lastState": copy.deepcopy(last) if last and i == 0 else {}}
            if f.get("pid") and "waiting" not in st:
                cs["containerID"] = f"fake://{f['pid']}"
            out.append(cs)
        pod["status"]["containerStatuses"] = out
        ready = "True" if "running" in state else "False"
        conds = pod["status"].setdefault("conditions", [])
        names = ", ".join(c.get("name", "") for c in pod["spec"].get("containers") or [])
        if ready == "True":
            reason, msg = None, None
        elif "terminated" in state:
            reason, msg = "PodCompleted", None
        else:
            reason, msg = "ContainersNotReady", f"containers with unready status: [{names}]"
        set_cond(conds, "ContainersReady", ready, reason, msg, t)
        set_cond(conds, "Ready", ready, reason, msg, t)

    def tick_pod(self, pod, t):
        f, st = pod["_fake"], pod["status"]
        state, delay = f.get("state"), self.args.pod_start_delay
        # The kubelet's activeDeadlineSeconds: counted from the pod's
        # startTime (bound to the node), then its containers are killed.
        deadline = pod["spec"].get("activeDeadlineSeconds")
        if (isinstance(deadline, int) and f.get("bound") is not None and state not in ("done", None)
                and st.get("phase") in ("Pending", "Running") and t >= f["bound"] + deadline):
            self.fail_pod(pod, "DeadlineExceeded", "Pod was active on the node longer than the specified deadline", t)
            return
        if state == "pending":
            short = self.insufficient(pod)
            conds = st.setdefault("conditions", [])
            if short:
                msg = "0/1 nodes are available: " + ", ".join(f"1 Insufficient {r}" for r in short) + "."
                set_cond(conds, "PodScheduled", "False", "Unschedulable", msg, t)
                f["state"] = "unschedulable"
            else:
                pod["spec"]["nodeName"] = NODE_NAME
                set_cond(conds, "PodScheduled", "True", None, None, t)
                set_cond(conds, "Initialized", "True", None, None, t)
                st.update(hostIP=LOCAL_IP, startTime=ts(t))
                f["bound"] = t
                self.set_containers(pod, {"waiting": {"reason": "ContainerCreating"}}, t)
                f["state"] = "creating"
            self.touch(pod)
        elif state == "creating" and t >= f["created"] + delay:
            self.start_container(pod, t)
        elif state == "backoff" and t >= f["restart_at"]:
            self.start_container(pod, t)
        elif state == "pulling" and t >= f["since"] + max(delay, 0.1):
            image = pod["spec"]["containers"][0].get("image")
            self.waiting(pod, "ImagePullBackOff", f'Back-off pulling image "{image}"', "waiting", t)
        elif state == "running":
            self.check_process(pod, t)

    def waiting(self, pod, reason, message, state, t):
        pod["_fake"].update(state=state, since=t, reason=reason)
        self.set_containers(pod, {"waiting": {"reason": reason, "message": message}}, t)
        self.touch(pod)

    def start_container(self, pod, t):
        f, c = pod["_fake"], pod["spec"]["containers"][0]
        image = c.get("image") or ""
        if image.startswith("fake/pull-error"):
            return self.waiting(pod, "ErrImagePull", f'failed to pull and unpack image "docker.io/{image}": '
                                "pull access denied, repository does not exist or may require authorization",
                                "pulling", t)
        if image.startswith("fake/invalid"):
            return self.waiting(pod, "InvalidImageName", f'Failed to apply default image tag "{image}": '
                                f'couldn\'t parse image name "{image}": invalid reference format', "waiting", t)
        if image.startswith("fake/config-error"):
            return self.waiting(pod, "CreateContainerConfigError", 'secret "fake-config-error" not found',
                                "waiting", t)
        if not c.get("command") and not c.get("args"):
            return self.waiting(pod, "CreateContainerConfigError", "the fake kubelet cannot run an image's "
                                "entrypoint: the container needs a command or args", "waiting", t)
        if c.get("workingDir"):
            cwd = c["workingDir"]
        else:
            if not f.get("workdir"):
                m = pod["metadata"]
                f["workdir"] = tempfile.mkdtemp(prefix=f"{m['namespace']}_{m['name']}_", dir=self.work_dir)
            cwd = f["workdir"]
        try:
            env = self.container_env(pod, c, cwd)
        except ConfigError as e:
            return self.waiting(pod, "CreateContainerConfigError", str(e), "waiting", t)
        argv = [expand(str(a), env) for a in (c.get("command") or []) + (c.get("args") or [])]
        base = self.pod_base(pod)
        unlink(base + ".exit", base + ".exit.tmp")
        try:
            os.makedirs(cwd, exist_ok=True)
            with open(base + ".log", "ab") as log:
                proc = subprocess.Popen(["/bin/sh", "-c", WRAPPER, base + ".exit"] + argv, cwd=cwd, env=env,
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        except OSError as e:
            f["started"] = t
            return self.container_exited(pod, 128, t, "StartError", f"failed to start the container process: {e}")
        self.procs[pod["metadata"]["uid"]] = proc
        info = proc_starttime(proc.pid)
        f.update(state="running", pid=proc.pid, pstart=info[1] if info else None, started=t)
        pod["status"]["phase"] = "Running"
        pod["status"].update(podIP=LOCAL_IP, podIPs=[{"ip": LOCAL_IP}])
        self.set_containers(pod, {"running": {"startedAt": ts(t)}}, t)
        self.touch(pod)

    def container_env(self, pod, c, cwd):
        spec, meta = pod["spec"], pod["metadata"]
        env = {"PATH": os.environ.get("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
               "HOSTNAME": spec.get("hostname") or meta["name"], "HOME": cwd,
               "KUBERNETES_SERVICE_HOST": LOCAL_IP, "KUBERNETES_SERVICE_PORT": str(self.port)}
        for src in c.get("envFrom") or []:
            ref = src.get("configMapRef") or src.get("secretRef")
            kind = "configmaps" if "configMapRef" in src else "secrets"
            data = self.config_data(meta["namespace"], kind, ref.get("name"), ref.get("optional"))
            env.update({src.get("prefix", "") + k: v for k, v in data.items()})
        defined = {}
        for e in c.get("env") or []:
            name = e.get("name")
            if "valueFrom" in e:
                v = self.value_from(pod, c, e["valueFrom"])
                if v is None:
                    continue
            else:
                v = expand(str(e.get("value", "")), defined)
            env[name] = defined[name] = v
        return env

    def config_data(self, ns, kind, name, optional):
        obj = self.objects.get(("v1", kind, ns, name))
        if obj is None:
            if optional:
                return {}
            raise ConfigError(f'{kind[:-1]} "{name}" not found')
        data = dict(obj.get("data") or {})
        if kind == "secrets":
            data = {k: base64.b64decode(v).decode(errors="replace") for k, v in data.items()}
            data.update(obj.get("stringData") or {})
        return data

    def value_from(self, pod, c, vf):
        meta = pod["metadata"]
        if "fieldRef" in vf:
            path = vf["fieldRef"].get("fieldPath", "")
            m = re.fullmatch(r"metadata\.(labels|annotations)\['(.*)'\]", path)
            if m:
                return (meta.get(m.group(1)) or {}).get(m.group(2), "")
            simple = {"metadata.name": meta["name"], "metadata.namespace": meta["namespace"],
                      "metadata.uid": meta["uid"], "spec.nodeName": NODE_NAME,
                      "spec.serviceAccountName": pod["spec"].get("serviceAccountName", "default"),
                      "status.podIP": LOCAL_IP, "status.hostIP": LOCAL_IP, "status.podIPs": LOCAL_IP}
            if path not in simple:
                raise ConfigError(f"unsupported fieldPath: {path}")
            return simple[path]
        for kind, refname in (("configmaps", "configMapKeyRef"), ("secrets", "secretKeyRef")):
            if refname in vf:
                ref = vf[refname]
                data = self.config_data(meta["namespace"], kind, ref.get("name"), ref.get("optional"))
                if ref.get("key") not in data:
                    if ref.get("optional"):
                        return None
                    raise ConfigError(f"couldn't find key {ref.get('key')} in {self.kinds[('v1', kind)]} "
                                      f"{meta['namespace']}/{ref.get('name')}")
                return data[ref["key"]]
        if "resourceFieldRef" in vf:
            ref = vf["resourceFieldRef"]
            part, _, res = ref.get("resource", "").partition(".")
            value = ((c.get("resources") or {}).get(part) or {}).get(res) or self.capacity.get(res, 0)
            return str(math.ceil(parse_quantity(value) / parse_quantity(ref.get("divisor", 1))))
        raise ConfigError("unsupported valueFrom")

    def process_alive(self, pod):
        proc = self.procs.get(pod["metadata"]["uid"])
        if proc is not None:
            return proc.poll() is None
        f = pod["_fake"]
        info = proc_starttime(f.get("pid"))    # a process adopted after a restart
        return bool(info) and info[0] not in "ZX" and f.get("pstart") in (None, info[1])

    def check_process(self, pod, t):
        base = self.pod_base(pod)
        code, message = read_exit(base + ".exit"), None
        if code is None:
            if self.process_alive(pod):
                return
            code = read_exit(base + ".exit")
            if code is None:
                proc = self.procs.get(pod["metadata"]["uid"])
                rc = proc.returncode if proc is not None else None
                code = 128 - rc if rc is not None and rc < 0 else (rc or 137)
                message = "the container process ended without reporting its exit status"
        proc = self.procs.pop(pod["metadata"]["uid"], None)
        if proc is not None and proc.poll() is None:
            self.reaping.append(proc)
        self.container_exited(pod, code, t, None, message)

    def container_exited(self, pod, code, t, reason=None, message=None):
        f, c = pod["_fake"], pod["spec"]["containers"][0]
        if (c.get("image") or "").startswith("fake/oom") and reason is None:
            code, reason = 137, "OOMKilled"
        reason = reason or ("Completed" if code == 0 else "Error")
        term = {"exitCode": code, "reason": reason, "startedAt": ts(f.get("started", t)), "finishedAt": ts(t)}
        if message:
            term["message"] = message
        policy = pod["spec"].get("restartPolicy", "Always")
        if policy == "Always" or (policy == "OnFailure" and code != 0):
            f["restarts"] = f.get("restarts", 0) + 1
            backoff = min(max(self.args.pod_start_delay, 0.1) * 2 ** (f["restarts"] - 1), 10.0)
            f.update(state="backoff", restart_at=t + backoff, reason="CrashLoopBackOff")
            base = self.pod_base(pod)
            try:
                os.replace(base + ".log", base + ".log.prev")
            except OSError:
                pass
            m = pod["metadata"]
            self.set_containers(pod, {"waiting": {"reason": "CrashLoopBackOff", "message":
                                      f"back-off {backoff:g}s restarting failed container={c.get('name')} "
                                      f"pod={m['name']}_{m['namespace']}({m['uid']})"}}, t, {"terminated": term})
        else:
            f.update(state="done", finished=t)
            pod["status"]["phase"] = "Succeeded" if code == 0 else "Failed"
            self.set_containers(pod, {"terminated": term}, t)
        self.touch(pod)

    def stop_pod(self, pod, grace, remove_files):
        """Kills a pod's process group (SIGTERM, SIGKILL after `grace`) without
        blocking; removes its files afterwards when asked to."""
        f = pod["_fake"]
        proc = self.procs.pop(pod["metadata"]["uid"], None)
        pid = f.get("pid")
        running = f.get("state") == "running" and pid and (
            proc.poll() is None if proc is not None else self.process_alive(pod))
        base = self.pod_base(pod)
        workdir = f.get("workdir")

        def cleanup():
            if running:
                self.killing.discard(pid)
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            if proc is not None:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            if remove_files:
                unlink(base + ".log", base + ".log.prev", base + ".exit", base + ".exit.tmp")
                if workdir:
                    shutil.rmtree(workdir, ignore_errors=True)
        if running:
            self.killing.add(pid)
            try:
                os.killpg(pid, signal.SIGTERM if grace > 0 else signal.SIGKILL)
            except OSError:
                pass
            timer = threading.Timer(grace, cleanup)
            timer.daemon = True
            timer.start()
        else:
            if proc is not None and proc.poll() is None:
                self.reaping.append(proc)
            proc = None
            cleanup()

    def fail_pod(self, pod, reason, message, t):
        """Kills a pod's process and marks it Failed (Job deadline or failure)."""
        self.stop_pod(pod, KILL_GRACE_S, remove_files=False)
        f = pod["_fake"]
        term = {"exitCode": 137, "reason": "Error", "startedAt": ts(f.get("started", t)), "finishedAt": ts(t)}
        if not f.get("started"):
            term = {"exitCode": 137, "reason": "ContainerStatusUnknown", "finishedAt": ts(t)}
        f.update(state="done", finished=t)
        pod["status"]["phase"] = "Failed"
        if reason:
            pod["status"].update(reason=reason, message=message)
        self.set_containers(pod, {"terminated": term}, t)
        self.touch(pod)

    def pod_log(self, ns, name, q):
        pod = self.get("v1", "pods", ns, name)
        names = [c.get("name") for c in pod["spec"].get("containers") or []]
        cname = q.get("container")
        if cname is None:
            if len(names) > 1:
                raise ApiError(400, f"a container name must be specified for pod {name}, choose one of: "
                                    f"[{' '.join(names)}]")
            cname = names[0]
        elif cname not in names:
            raise ApiError(400, f"container {cname} is not valid for pod {name}")
        f, path = pod["_fake"], self.pod_base(pod) + ".log"
        state = f.get("state")
        if q.get("previous") in ("true", "1"):
            path += ".prev"
            if not os.path.exists(path):
                raise ApiError(400, f'previous terminated container "{cname}" in pod "{name}" not found')
        elif state in ("pending", "unschedulable", "creating"):
            raise ApiError(400, f'container "{cname}" in pod "{name}" is waiting to start: ContainerCreating')
        elif state in ("pulling", "waiting"):
            why = {"ErrImagePull": "image can't be pulled",
                   "ImagePullBackOff": "trying and failing to pull image"}.get(f.get("reason"), f.get("reason"))
            raise ApiError(400, f'container "{cname}" in pod "{name}" is waiting to start: {why}')
        elif state == "backoff":
            path += ".prev"
        data = b""
        if cname == names[0]:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                pass
        if q.get("tailLines"):
            n = int(q["tailLines"])
            lines = data.splitlines(keepends=True)
            data = b"".join(lines[-n:]) if n > 0 else b""
        if q.get("limitBytes"):
            data = data[:int(q["limitBytes"])]
        return Raw(data)

    # --- Jobs: the Job controller and Kueue

    def init_job(self, job, t):
        spec, meta = job.setdefault("spec", {}), job["metadata"]
        uid, name = meta["uid"], meta["name"]
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
        spec.setdefault("parallelism", 1)
        spec.setdefault("backoffLimit", 6)
        spec.setdefault("completionMode", "NonIndexed")
        spec.setdefault("suspend", False)
        if not spec.get("manualSelector"):
            spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
        tmeta = spec["template"].setdefault("metadata", {})
        tmeta.setdefault("labels", {}).update({"batch.kubernetes.io/controller-uid": uid,
                                               "batch.kubernetes.io/job-name": name,
                                               "controller-uid": uid, "job-name": name})
        job["status"] = {}
        f = job["_fake"]
        f.update(succeeded=0, failed=0, indexes=[], start=None, finished=None, admit_at=None)
        queue = (meta.get("labels") or {}).get(QUEUE_LABEL)
        if queue:
            spec["suspend"] = True               # what Kueue's webhook does
            if queue != HOLD_QUEUE:
                f["admit_at"] = t + self.args.admit_delay
            self.create_workload(job, queue, t)

    def create_workload(self, job, queue, t):
        meta = job["metadata"]
        name = f"job-{meta['name']}-{meta['uid'][:5]}"[:253]
        wl = {"apiVersion": KUEUE_GV, "kind": "Workload",
              "metadata": {"labels": {"kueue.x-k8s.io/job-uid": meta["uid"]},
                           "ownerReferences": [self.owner_ref(job)]},
              "spec": {"queueName": queue, "priority": 0,
                       "podSets": [{"name": "main", "count": job["spec"].get("parallelism", 1)}]},
              "status": {"conditions": []}}
        if queue == HOLD_QUEUE:
            set_cond(wl["status"]["conditions"], "QuotaReserved", "False", "Pending", HOLD_MESSAGE, t)
        self.insert((*WORKLOADS, meta["namespace"], name), wl, t)
        job["_fake"]["workload"] = name

    def workload(self, job):
        name = job["_fake"].get("workload")
        return self.objects.get((*WORKLOADS, job["metadata"]["namespace"], name)) if name else None

    @staticmethod
    def owner_ref(obj):
        m = obj["metadata"]
        return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": m["name"], "uid": m["uid"],
                "controller": True, "blockOwnerDeletion": True}

    def admit(self, job, t):
        job["spec"]["suspend"] = False
        job["_fake"]["admit_at"] = None
        self.touch(job)
        wl = self.workload(job)
        if wl is None:
            return
        conds = wl["status"].setdefault("conditions", [])
        set_cond(conds, "QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue cluster-queue", t)
        set_cond(conds, "Admitted", "True", "Admitted", "The workload is admitted", t)
        if cond_status(conds, "Evicted") == "True":
            set_cond(conds, "Evicted", "False", "QuotaReserved", "Previously evicted workload is admitted again", t)
        resources = set()
        for c in job["spec"]["template"]["spec"].get("containers") or []:
            for part in ("requests", "limits"):
                resources |= set(((c.get("resources") or {}).get(part) or {}))
        wl["status"]["admission"] = {"clusterQueue": "cluster-queue", "podSetAssignments": [
            {"name": "main", "count": job["spec"].get("parallelism", 1),
             "flavors": {r: "default-flavor" for r in sorted(resources)}}]}
        self.touch(wl)

    def evict(self, ns, name):
        job = self.get(*JOBS, ns, name)
        f, t = job["_fake"], time.time()
        if f.get("finished") is not None:
            raise ApiError(409, f'jobs.batch "{name}" has already finished', "Conflict")
        job["spec"]["suspend"] = True
        queue = (job["metadata"].get("labels") or {}).get(QUEUE_LABEL)
        f["admit_at"] = None if queue == HOLD_QUEUE else t + self.args.admit_delay
        self.touch(job)
        for key, pod in self.owned_by(job["metadata"]["uid"], PODS):
            if pod["_fake"].get("state") != "done":
                self.remove(key, "Background", KILL_GRACE_S, user=False)
        wl = self.workload(job)
        if wl is not None:
            conds = wl["status"].setdefault("conditions", [])
            msg = "Preempted to accommodate a workload (UID: fake) due to prioritization in the ClusterQueue"
            set_cond(conds, "Evicted", "True", "Preempted", msg, t)
            set_cond(conds, "QuotaReserved", "False", "Preempted", msg, t)
            set_cond(conds, "Admitted", "False", "Preempted", msg, t)
            set_cond(conds, "Requeued", "True", "Preempted", msg, t)
            wl["status"].pop("admission", None)
            self.touch(wl)
        return public(job)

    def new_pod(self, owner, ns, base, template, labels, annotations, t, hostname=None, env=None):
        tmeta, spec = template.get("metadata") or {}, copy.deepcopy(template.get("spec") or {})
        name = self.gen_name(*PODS, ns, base) if base.endswith("-") else base
        if (*PODS, ns, name) in self.objects:
            name = self.gen_name(*PODS, ns, base + "-")
        if hostname:
            spec["hostname"] = hostname
        if env:
            for c in spec.get("containers") or []:
                have = {e.get("name") for e in c.get("env") or []}
                c["env"] = (c.get("env") or []) + [e for e in env if e["name"] not in have]
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"labels": {**(tmeta.get("labels") or {}), **labels},
                            "annotations": {**(tmeta.get("annotations") or {}), **annotations},
                            "ownerReferences": [self.owner_ref(owner)]},
               "spec": spec}
        if not pod["metadata"]["annotations"]:
            del pod["metadata"]["annotations"]
        self.insert((*PODS, ns, name), pod, t)
        self.init_pod(pod)
        return pod

    def tick_job(self, key, job, owned, t):
        spec, f, meta = job["spec"], job["_fake"], job["metadata"]
        if f.get("finished") is not None:
            ttl = spec.get("ttlSecondsAfterFinished")
            if ttl is not None and t >= f["finished"] + ttl:
                self.remove(key, "Background", KILL_GRACE_S, user=False)
            return
        if spec.get("suspend") and f.get("admit_at") is not None and t >= f["admit_at"]:
            self.admit(job, t)
        st = copy.deepcopy(job.get("status") or {})
        conds = st.setdefault("conditions", [])
        indexed = spec.get("completionMode") == "Indexed"
        for _, p in owned:                          # count finished pods once
            pf = p["_fake"]
            if pf.get("state") == "done" and not pf.get("counted"):
                pf["counted"] = True
                self.dirty = True
                if p["status"].get("phase") != "Succeeded":
                    f["failed"] += 1
                elif indexed:
                    i = int(p["metadata"]["annotations"][INDEX_ANNOTATION])
                    if i not in f["indexes"]:
                        f["indexes"].append(i)
                        f["succeeded"] += 1
                else:
                    f["succeeded"] += 1
        active = [(k, p) for k, p in owned if p["_fake"].get("state") != "done"]
        if spec.get("suspend"):
            for k, _ in active:
                self.remove(k, "Background", KILL_GRACE_S, user=False)
            active = []
            set_cond(conds, "Suspended", "True", "JobSuspended", "Job suspended", t)
            st.pop("startTime", None)
            f["start"] = None
        else:
            if cond_status(conds, "Suspended") == "True":
                set_cond(conds, "Suspended", "False", "JobResumed", "Job resumed", t)
            if f.get("start") is None:
                f["start"] = t
                st["startTime"] = ts(t)
            parallelism = spec.get("parallelism", 1)
            completions = spec.get("completions") if spec.get("completions") is not None else parallelism
            restarts = sum(p["_fake"].get("restarts", 0) for _, p in active)
            deadline = spec.get("activeDeadlineSeconds")
            failure = None
            if f["failed"] + restarts > spec.get("backoffLimit", 6):
                failure = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
            elif deadline is not None and t - f["start"] >= deadline:
                failure = ("DeadlineExceeded", "Job was active longer than specified deadline")
            if failure:
                for _, p in active:
                    self.fail_pod(p, failure[0] if failure[0] == "DeadlineExceeded" else None,
                                  "Pod was active on the node longer than the specified deadline"
                                  if failure[0] == "DeadlineExceeded" else None, t)
                    p["_fake"]["counted"] = True
                    f["failed"] += 1
                active = []
                set_cond(conds, "Failed", "True", failure[0], failure[1], t)
                f["finished"] = t
            elif f["succeeded"] >= completions:
                for k, _ in active:
                    self.remove(k, "Background", KILL_GRACE_S, user=False)
                active = []
                set_cond(conds, "Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods", t)
                st["completionTime"] = ts(t)
                f["finished"] = t
            else:
                active += self.create_job_pods(job, active, parallelism, completions, indexed, t)
        st["active"] = len(active)
        st["ready"] = sum(1 for _, p in active if p["_fake"].get("state") == "running")
        st["succeeded"], st["failed"] = f["succeeded"], f["failed"]
        for k in ("active", "succeeded", "failed"):     # the real API omits zero counts
            if not st[k]:
                del st[k]
        if indexed and f["indexes"]:
            st["completedIndexes"] = ranges(f["indexes"])
        st["uncountedTerminatedPods"] = {}
        if not conds:
            del st["conditions"]
        if f.get("finished") is not None:
            wl = self.workload(job)
            if wl is not None:
                ok = cond_status(conds, "Complete") == "True"
                set_cond(wl["status"].setdefault("conditions", []), "Finished", "True",
                         "Succeeded" if ok else "Failed",
                         "Job finished successfully" if ok else cond_msg(conds, "Failed"), t)
                self.touch(wl)
        if st != job.get("status"):
            job["status"] = st
            self.touch(job)

    def create_job_pods(self, job, active, parallelism, completions, indexed, t):
        spec, meta, f = job["spec"], job["metadata"], job["_fake"]
        name, ns, uid = meta["name"], meta["namespace"], meta["uid"]
        labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
                  "controller-uid": uid, "job-name": name}
        room = max(0, parallelism - len(active))
        created = []
        if indexed:
            busy = {int(p["metadata"]["annotations"][INDEX_ANNOTATION]) for _, p in active} | set(f["indexes"])
            todo = [i for i in range(completions) if i not in busy][:room]
            for i in todo:
                env = [{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                    "fieldPath": f"metadata.annotations['{INDEX_ANNOTATION}']"}}}]
                pod = self.new_pod(job, ns, f"{name}-{i}-", spec["template"],
                                   {**labels, "batch.kubernetes.io/job-completion-index": str(i)},
                                   {INDEX_ANNOTATION: str(i)}, t, hostname=f"{name}-{i}", env=env)
                created.append(((*PODS, ns, pod["metadata"]["name"]), pod))
        else:
            for _ in range(min(room, completions - f["succeeded"] - len(active))):
                pod = self.new_pod(job, ns, f"{name}-", spec["template"], labels, {}, t)
                created.append(((*PODS, ns, pod["metadata"]["name"]), pod))
        return created

    # --- custom resources with a pod template

    def tick_custom(self, key, obj, owned, t):
        spec, f = obj.get("spec"), obj["_fake"]
        if not isinstance(spec, dict) or not isinstance(spec.get("template"), dict) or f.get("finished"):
            return
        name, ns = key[3], key[2]
        replicas = int(spec.get("replicas", 1))
        if not f.get("pods_created"):
            labels = {**(obj["metadata"].get("labels") or {}), OWNER_LABEL: name}
            tmpl = copy.deepcopy(spec["template"])
            tmpl.setdefault("spec", {}).setdefault("restartPolicy", "Never")
            for i in range(replicas):
                pod = self.new_pod(obj, ns, f"{name}-{i}", tmpl, labels, {}, t)
                owned.append(((*PODS, ns, pod["metadata"]["name"]), pod))
            f["pods_created"] = True
            self.dirty = True
        phases = [p["status"].get("phase") for _, p in owned]
        if "Failed" in phases:
            state = "Failed"
        elif phases.count("Succeeded") >= replicas:
            state = "Completed"
        elif len(owned) >= replicas and all(p["_fake"].get("state") in ("running", "done") for _, p in owned):
            state = "Running"
        else:
            state = "Pending"
        st = obj.setdefault("status", {})
        if st.get("state") != state:
            st["state"] = state
            if state in ("Completed", "Failed"):
                st["completionTime"] = ts(t)
                f["finished"] = t
            self.touch(obj)

    # --- Graphcore IPUJobs: the IPU Operator

    @staticmethod
    def init_ipujob(obj):
        """The defaults in the IPUJob CRD's schema, which the apiserver applies."""
        spec = obj["spec"]
        spec["workers"].setdefault("replicas", 1)
        if isinstance(spec.get("restartPolicy"), dict):
            spec["restartPolicy"].setdefault("backOffLimit", 3)

    def tick_ipujob(self, key, obj, owned, t):
        """The IPU Operator's reconcile loop for an IPUJob without a launcher:
        status.launcherStatus Pending (waiting for its IPU partition,
        --ipujob-queue-delay) -> Starting (worker pods NAME-worker-I created,
        one per job instance) -> Running (all started) -> Completed (all
        succeeded, "All instances done") or Failed (a worker failed). A worker
        pod deleted before the end is created again, once the deleted one's
        files are gone (it has the same name)."""
        spec, f = obj.get("spec") or {}, obj["_fake"]
        if f.get("finished") is not None:
            return
        name, ns = key[3], key[2]
        n = spec.get("jobInstances", 1)
        st = copy.deepcopy(obj.get("status") or {})
        st.setdefault("startTime", ts(t))
        st["desiredReplicas"] = n
        delay = self.args.ipujob_queue_delay
        if not f.get("workers"):
            if delay < 0 or t < f["created"] + delay:
                st.update(launcherStatus="Pending", currentReplicas=0, iPUPartitionCreated=False,
                          lastMessage=f"waiting for an IPU partition of {spec.get('ipusPerJobInstance')} IPUs")
                return self.set_ipujob_status(obj, st, t)
            f["workers"] = [self.new_ipujob_worker(obj, ns, f"{name}-worker-{i}", t)["metadata"]["name"]
                            for i in range(n)]
            f["missing"] = {}
            owned = [((*PODS, ns, pname), self.objects[(*PODS, ns, pname)]) for pname in f["workers"]]
        st["iPUPartitionCreated"] = True
        mine = {k[3]: p for k, p in owned}
        workers = []
        for i, pname in enumerate(f["workers"]):
            pod = mine.get(pname)
            if pod is None:
                if str(i) not in f["missing"]:
                    f["missing"][str(i)] = t
                    self.dirty = True
                if t < f["missing"][str(i)] + KILL_GRACE_S + 1.0:
                    continue
                pod = self.new_ipujob_worker(obj, ns, f"{name}-worker-{i}", t)
                f["workers"][i] = pod["metadata"]["name"]
                f["missing"].pop(str(i))
            workers.append(pod)
        failed = [p for p in workers if p["status"].get("phase") == "Failed"]
        succeeded = sum(1 for p in workers if p["status"].get("phase") == "Succeeded")
        active = sum(1 for p in workers if p["_fake"].get("state") != "done")
        if failed:
            state = "Failed"
            term = (failed[0]["status"].get("containerStatuses") or [{}])[0].get("state", {}).get("terminated") or {}
            message = f"worker pod {failed[0]['metadata']['name']} failed" + \
                (f" (exit code {term['exitCode']}, {term.get('reason')})" if "exitCode" in term else "")
        elif succeeded == n:
            state, message = "Completed", "All instances done"
        elif len(workers) == n and all(p["_fake"].get("started") or p["_fake"].get("state") == "done"
                                       for p in workers):
            state, message = "Running", ""
        else:
            state, message = "Starting", ""
        st.update(launcherStatus=state, currentReplicas=active, lastMessage=message,
                  workersStatus={k: v for k, v in (("active", active), ("succeeded", succeeded),
                                                   ("failed", len(failed))) if v})
        if state in ("Completed", "Failed"):
            st["completionTime"] = ts(t)
            f["finished"] = t
            self.dirty = True
            if spec.get("cleanPodPolicy") in ("All", "Workers"):
                for p in workers:
                    self.remove((*PODS, ns, p["metadata"]["name"]), "Background", KILL_GRACE_S, user=False)
        self.set_ipujob_status(obj, st, t)

    def new_ipujob_worker(self, obj, ns, name, t):
        """A worker pod from spec.workers.template: its labels and the
        operator's, the IPUJob's restart policy, host networking."""
        spec = obj["spec"]
        tmpl = copy.deepcopy(spec["workers"].get("template") or {})
        pspec = tmpl.setdefault("spec", {})
        rtype = (spec.get("restartPolicy") or {}).get("type", "Never")
        pspec["restartPolicy"] = IPUJOB_POD_RESTART.get(rtype, "Never")
        pspec.setdefault("hostNetwork", True)
        pspec.setdefault("dnsPolicy", "ClusterFirstWithHostNet")
        return self.new_pod(obj, ns, name, tmpl, {IPUJOB_LABEL: obj["metadata"]["name"]}, {}, t)

    def set_ipujob_status(self, obj, st, t):
        if st != obj.get("status"):
            st["lastReconcileTime"] = ts(t)
            obj["status"] = st
            self.touch(obj)

    # --- the ticker

    def tick(self):
        t = time.time()
        with self.lock:
            for key in [k for k in self.objects if k[:2] == PODS]:
                pod = self.objects.get(key)
                if pod is not None:
                    self.tick_pod(pod, t)
            owned = {}
            for key, pod in self.objects.items():
                if key[:2] == PODS:
                    for ref in pod["metadata"].get("ownerReferences") or []:
                        owned.setdefault(ref.get("uid"), []).append((key, pod))
            for key in list(self.objects):
                obj = self.objects.get(key)
                if obj is None:
                    continue
                mine = owned.get(obj["metadata"].get("uid"), [])
                if key[:2] == JOBS:
                    self.tick_job(key, obj, mine, t)
                elif is_ipujob(*key[:2]):
                    self.tick_ipujob(key, obj, mine, t)
                elif key[0] not in ("v1", "batch/v1", KUEUE_GV):
                    self.tick_custom(key, obj, mine, t)
            self.reaping = [p for p in self.reaping if p.poll() is None]
            self.save()

    def run_ticker(self):
        while not self.stop.wait(TICK_S):
            try:
                self.tick()
            except Exception:
                traceback.print_exc()

    def shutdown_pods(self):
        """On SIGTERM/SIGINT: kill every pod process (SIGTERM, then SIGKILL)."""
        with self.lock:
            groups = []
            for key, pod in self.objects.items():
                if key[:2] == PODS and pod["_fake"].get("state") == "running" and self.process_alive(pod):
                    groups.append(pod["_fake"]["pid"])
            groups += list(self.killing)
            for sig in (signal.SIGTERM, signal.SIGKILL):
                for pid in groups:
                    try:
                        os.killpg(pid, sig)
                    except OSError:
                        pass
                if sig == signal.SIGTERM and groups:
                    time.sleep(KILL_GRACE_S)
            for p in list(self.procs.values()) + self.reaping:
                try:
                    p.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass

    # --- faults and control

    def take_fault(self, method, path):
        with self.fault_lock:
            for fault in self.faults:
                m, _, prefix = fault["match"].strip().partition(" ")
                if not prefix:
                    m, prefix = "*", m
                if m in ("*", method) and path.startswith(prefix):
                    if fault["left"] > 0:
                        fault["left"] -= 1
                    if fault["left"] == 0:
                        self.faults.remove(fault)
                    return fault
        return None

    def control(self, method, path, body):
        if path == "/fake/faults":
            if method == "GET":
                with self.fault_lock:
                    return 200, {"faults": copy.deepcopy(self.faults)}
            if method == "DELETE":
                with self.fault_lock:
                    n = len(self.faults)
                    self.faults.clear()
                return 200, {"cleared": n}
            if method == "POST":
                try:
                    specs = json.loads(body.decode() or "null")
                except ValueError as e:
                    raise ApiError(400, f"bad JSON: {e}")
                specs = specs if isinstance(specs, list) else [specs]
                for s in specs:
                    if not isinstance(s, dict) or not isinstance(s.get("match"), str):
                        raise ApiError(400, 'each fault needs "match": "METHOD /path/prefix"')
                with self.fault_lock:
                    for s in specs:
                        fault = dict(s)
                        fault["left"] = int(s.get("count", 1))
                        self.faults.append(fault)
                return 200, {"queued": len(specs)}
        if path == "/fake/state" and method == "GET":
            with self.lock:
                return 200, {"resourceVersion": str(self.rv), "objects": [
                    {**obj, "kind": self.kind_of(k[0], k[1]), "apiVersion": k[0]} for k, obj in sorted(self.objects.items())]}
        if path == "/fake/evict" and method == "POST":
            req = self.json_body(body)
            with self.lock:
                out = self.evict(req.get("namespace", "default"), req.get("job", ""))
                self.save()
                return 200, out
        raise ApiError(404, f"no control endpoint {method} {path}")


def cond_msg(conds, ctype):
    for c in conds:
        if c.get("type") == ctype:
            return c.get("message")
    return None


# ----------------------------------------------------------------- HTTP

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-kube-apiserver/1.0"
    timeout = 120          # idle keep-alive connections

    def setup(self):
        super().setup()
        self.request.do_handshake()

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def authenticate(self, root):
        header = self.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            try:
                with open(os.path.join(root, "tokens")) as fh:
                    tokens = {line.strip() for line in fh if line.strip()}
            except OSError:
                tokens = set()
            if header[7:].strip() in tokens:
                return "token"
        try:
            if self.connection.getpeercert():
                return "cert"
        except (ValueError, AttributeError):
            pass
        return "none"

    def dispatch(self, method):
        cluster = self.server.cluster
        t0 = time.time()
        body = self.read_body()
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, url.query
        auth, fault, drop, headers = "none", None, False, {}
        try:
            if path.startswith("/fake/"):
                code, payload = cluster.control(method, path, body)
            elif path in ("/healthz", "/livez", "/readyz"):
                code, payload = 200, Raw(b"ok")
            elif path == "/version":
                code, payload = 200, {"major": "1", "minor": "30", "gitVersion": "v1.30.0-fake",
                                      "platform": "linux/amd64"}
            else:
                auth = self.authenticate(cluster.root)
                if auth == "none":
                    raise ApiError(401, "Unauthorized")
                fault = cluster.take_fault(method, path)
                if fault and fault.get("delay"):
                    time.sleep(float(fault["delay"]))
                code = None
                if not fault or fault.get("after"):
                    try:
                        with cluster.lock:
                            code, payload = cluster.api(method, path, query, body,
                                                        self.headers.get("Content-Type", ""))
                            if not isinstance(payload, Raw):
                                payload = Raw(json.dumps(payload).encode(), "application/json")
                            cluster.save()
                    except ApiError:
                        if not fault:
                            raise
                if fault:
                    drop = bool(fault.get("drop"))
                    code, payload, headers = self.fault_answer(fault)
        except ApiError as e:
            code, payload, headers = e.code, e.status(), e.headers
        except Exception as e:  # a bug: answer like the apiserver would
            traceback.print_exc()
            code, payload = 500, ApiError(500, f"Internal error occurred: {e}").status()
        self.log_request_line(t0, method, path, query, 0 if drop else code, auth, fault)
        if drop:
            self.close_connection = True
            return
        if not isinstance(payload, Raw):
            payload = Raw(json.dumps(payload).encode(), "application/json")
        self.send_response(code)
        self.send_header("Content-Type", payload.ctype)
        self.send_header("Content-Length", str(len(payload.data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload.data)

    @staticmethod
    def fault_answer(fault):
        code = int(fault.get("status", 500))
        headers = {}
        ra = fault.get("retry_after")
        if ra is not None:
            headers["Retry-After"] = str(int(ra)) if float(ra) == int(float(ra)) else str(ra)
        body = fault.get("body")
        if isinstance(body, str):
            return code, Raw(body.encode(), "application/json" if body.lstrip().startswith("{") else "text/plain"), headers
        if body is not None:
            return code, body, headers
        details = {"retryAfterSeconds": int(float(ra))} if ra is not None else None
        return code, ApiError(code, DEFAULT_MESSAGES.get(code, f"injected {code} by the fake apiserver"),
                              details=details).status(), headers

    def log_request_line(self, t0, method, path, query, code, auth, fault):
        entry = {"t": round(t0, 6), "method": method, "path": path, "query": query, "status": code, "auth": auth}
        if fault:
            entry["fault"] = True
        line = (json.dumps(entry) + "\n").encode()
        fd = os.open(os.path.join(self.server.cluster.root, "requests.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ssl.SSLError, ConnectionError, TimeoutError, OSError)):
            return                 # handshakes that failed, clients that went away
        super().handle_error(request, client_address)


# ----------------------------------------------------------------- setup

OPENSSL_CNF = """[req]
distinguished_name = dn
prompt = no
[dn]
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[v3_server]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[v3_client]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""
PKI_FILES = ("ca.crt", "ca.key", "server.crt", "server.key", "client.crt", "client.key")


def ensure_pki(pki):
    """Makes the CA, the server and the client certificates with openssl, once."""
    if all(os.path.exists(os.path.join(pki, f)) for f in PKI_FILES):
        return
    os.makedirs(pki, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=pki, prefix=".gen-")
    cnf = os.path.join(tmp, "openssl.cnf")
    with open(cnf, "w") as fh:
        fh.write(OPENSSL_CNF)

    def run(*args):
        subprocess.run(["openssl", *args], cwd=tmp, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    run("req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", "ca.key", "-out", "ca.crt",
        "-days", "3650", "-subj", "/CN=hetbench-fake-ca", "-config", cnf, "-extensions", "v3_ca")
    for who, subj, ext in (("server", "/CN=localhost", "v3_server"),
                           ("client", "/O=hetbench/CN=hetbench-test", "v3_client")):
        run("req", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", f"{who}.key", "-out", f"{who}.csr",
            "-subj", subj, "-config", cnf)
        run("x509", "-req", "-in", f"{who}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-set_serial", "0x" + uuid.uuid4().hex[:16], "-days", "3650", "-out", f"{who}.crt",
            "-extfile", cnf, "-extensions", ext)
    for f in PKI_FILES:
        os.replace(os.path.join(tmp, f), os.path.join(pki, f))
    shutil.rmtree(tmp, ignore_errors=True)


KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: https://127.0.0.1:{port}
    certificate-authority: pki/ca.crt
users:
- name: token-user
  user:
    token: hb-test-token
- name: cert-user
  user:
    client-certificate: pki/client.crt
    client-key: pki/client.key
contexts:
- name: fake-token
  context:
    cluster: fake
    user: token-user
    namespace: hb-test
- name: fake-cert
  context:
    cluster: fake
    user: cert-user
    namespace: hb-test
current-context: fake-token
preferences: {{}}
"""


def write_file(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


class Shutdown(Exception):
    pass


def main():
    ap = argparse.ArgumentParser(description="Fake Kubernetes API server for hetbench's tests.")
    ap.add_argument("--dir", required=True, help="state directory (pki, kubeconfig, state.json, logs)")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1; 0 = pick a free one")
    ap.add_argument("--pod-start-delay", type=float, default=0.2, help="seconds a pod stays Pending")
    ap.add_argument("--admit-delay", type=float, default=0.3, help="seconds before Kueue admits a Job")
    ap.add_argument("--max-active-jobs", type=int, default=None, help="quota of unfinished Jobs per namespace")
    ap.add_argument("--node-capacity", default=None, help="JSON object merged over the default node capacity")
    ap.add_argument("--ipujob-queue-delay", type=float, default=0.3,
                    help="seconds an IPUJob stays Pending before its worker pods are created; < 0: forever")
    args = ap.parse_args()

    root = os.path.abspath(args.dir)
    for sub in ("", "pki", "pods", "work"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    unlink(os.path.join(root, "ready"))
    capacity = dict(DEFAULT_CAPACITY)
    if args.node_capacity:
        capacity.update({k: str(v) for k, v in json.loads(args.node_capacity).items()})
    pki = os.path.join(root, "pki")
    ensure_pki(pki)
    tokens = os.path.join(root, "tokens")
    if not os.path.exists(tokens):
        write_file(tokens, "hb-test-token\n")

    cluster = Cluster(root, args, capacity)
    cluster.load()
    deadline = time.time() + 10
    while True:                        # the old process's socket may linger briefly after a restart
        try:
            httpd = Server(("127.0.0.1", args.port), Handler)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    httpd.cluster = cluster
    port = cluster.port = httpd.server_address[1]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(pki, "server.crt"), os.path.join(pki, "server.key"))
    ctx.load_verify_locations(os.path.join(pki, "ca.crt"))
    ctx.verify_mode = ssl.CERT_OPTIONAL
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)

    write_file(os.path.join(root, "kubeconfig"), KUBECONFIG.format(port=port))
    write_file(os.path.join(root, "port"), f"{port}\n")
    write_file(os.path.join(root, "server.pid"), f"{os.getpid()}\n")
    ticker = threading.Thread(target=cluster.run_ticker, daemon=True)
    ticker.start()

    def on_signal(signum, frame):
        raise Shutdown()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    write_file(os.path.join(root, "ready"), f"{port}\n")
    print(f"fake apiserver listening on https://127.0.0.1:{port} (dir {root})", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except Shutdown:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        unlink(os.path.join(root, "ready"))
        cluster.stop.set()
        ticker.join(timeout=2)
        cluster.shutdown_pods()
        with cluster.lock:
            cluster.save()
        httpd.server_close()


if __name__ == "__main__":
    main()
