#!/usr/bin/python3
"""Offline check of Kubernetes manifests against the official Python client.

Reads JSON objects (from files, or stdin when none is given or for "-"; a
file may hold several objects one after the other, a JSON list, or a
kind: *List with items) and deserialises each with
kubernetes.client.ApiClient().deserialize into the model class of its kind
(V1Job, V1Pod, V1Service...), then serialises it back with
sanitize_for_serialization. The client drops every field its model does
not know, so a field of the input missing from the round trip is unknown
or misspelt ("backofLimit"), and a value that changes had the wrong type
(a number where a string belongs). Each is printed with its JSON path.

--allow FIELD_PATH (repeatable) permits a field that is newer than the
client (e.g. spec.podFailurePolicy): the path and everything under it.
List indices are optional in FIELD_PATH (spec.template.spec.containers.foo
matches containers[0].foo).

Objects whose apiVersion is not a core group known to the client (custom
resources) are skipped with a note.

Exit status: 0 all valid, 1 a field was dropped or changed, 2 bad usage or
input that is not JSON.

Needs Debian's python3-kubernetes: run with /usr/bin/python3.
"""

import argparse
import json
import re
import sys

# Groups whose models the client names V1<Kind>.
CORE_GROUPS = {"v1", "batch/v1", "apps/v1", "policy/v1", "networking.k8s.io/v1", "scheduling.k8s.io/v1",
               "rbac.authorization.k8s.io/v1", "storage.k8s.io/v1", "autoscaling/v1"}


# Fields that are resource.Quantity: a number is as good as a string there.
# A resource name may have a domain with dots (nvidia.com/gpu, graphcore.ai/ipu).
QUANTITY = re.compile(r"(^|\.)(requests|limits|hard|capacity)\.([a-z0-9.-]+/)?[^./]+$|(^|\.)sizeLimit$")


class _Response:
    """What ApiClient.deserialize reads: an object with .data."""

    def __init__(self, data):
        self.data = data


def read_objects(text, source):
    """The JSON objects in text: concatenated, a list, or a *List."""
    dec = json.JSONDecoder()
    out, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        try:
            value, pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise ValueError(f"{source}: not JSON: {e}") from e
        if isinstance(value, list):
            out.extend(value)
        elif isinstance(value, dict) and str(value.get("kind", "")).endswith("List") and "items" in value:
            out.extend(value["items"])
        else:
            out.append(value)


def normal(path):
    return re.sub(r"\[\d+\]", "", path)


def allowed(path, allow):
    p = normal(path)
    return any(p == a or p.startswith(a + ".") for a in allow)


def compare(a, b, path, allow, problems):
    """Records where input a lost a field or changed in round trip b."""
    if allowed(path, allow):
        return
    if isinstance(a, dict):
        if not isinstance(b, dict):
            problems.append(f"{path}: expected a mapping here")
            return
        for k, v in a.items():
            sub = f"{path}.{k}" if path else k
            if v is None or allowed(sub, allow):
                continue
            if k not in b:
                problems.append(f"{sub}: unknown field (not in the client's model; misspelt?)")
            else:
                compare(v, b[k], sub, allow, problems)
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            problems.append(f"{path}: expected a list here")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", allow, problems)
    elif isinstance(a, (int, float)) and not isinstance(a, bool) and b == str(a) and QUANTITY.search(normal(path)):
        return  # a quantity may be written as a number; the client keeps them as strings
    elif a != b or type(a) is not type(b):
        problems.append(f"{path}: {json.dumps(a)} became {json.dumps(b)} (wrong type?)")


def check(obj, client, allow):
    """Problems with one object; None when it was skipped."""
    if not isinstance(obj, dict):
        return ["<top>: expected a Kubernetes object (a mapping)"]
    api, kind = obj.get("apiVersion"), obj.get("kind")
    name = (obj.get("metadata") or {}).get("name") or (obj.get("metadata") or {}).get("generateName") or "?"
    import kubernetes.client as kc
    cls = f"V1{kind}"
    if api not in CORE_GROUPS or not hasattr(kc, cls):
        print(f"note: skipped {kind} {name} (apiVersion {api}): not a model the client knows (custom resource?)")
        return None
    try:
        model = client.deserialize(_Response(json.dumps(obj)), cls)
    except (ValueError, TypeError) as e:
        return [f"<top>: the client refuses it: {e}"]
    back = client.sanitize_for_serialization(model)
    problems = []
    compare(obj, back, "", allow, problems)
    return [f"{kind} {name}: {p}" for p in problems]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="JSON files ('-' or none: stdin)")
    ap.add_argument("--allow", action="append", default=[], metavar="FIELD_PATH",
                    help="a field path newer than the client to accept (repeatable)")
    args = ap.parse_args()
    try:
        import kubernetes.client
    except ImportError:
        print("validate_manifest: needs the kubernetes Python client (Debian: python3-kubernetes)", file=sys.stderr)
        return 2
    client = kubernetes.client.ApiClient()
    allow = [normal(a) for a in args.allow]
    objects = []
    try:
        for f in args.files or ["-"]:
            text = sys.stdin.read() if f == "-" else open(f, encoding="utf-8").read()
            objects.extend(read_objects(text, "stdin" if f == "-" else f))
    except (OSError, ValueError) as e:
        print(f"validate_manifest: {e}", file=sys.stderr)
        return 2
    failed = False
    for obj in objects:
        problems = check(obj, client, allow)
        if problems is None:
            continue
        for p in problems:
            print(p)
        failed = failed or bool(problems)
        if not problems:
            meta = obj.get("metadata") or {}
            print(f"ok: {obj.get('kind')} {meta.get('name') or meta.get('generateName') or '?'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
