#!/usr/bin/python3
"""Checks the hb_k8s.yaml files that `hetbench run --dry-run` writes.

Each file is a multi-document YAML: per object a `# POST <path>` comment,
then the object as JSON. For every object:

- a v1 Pod or batch/v1 Job (and the other kinds the Kubernetes client
  models, e.g. a headless Service) is deserialised with
  kubernetes.client.ApiClient().deserialize into its model (V1Pod,
  V1Job...) and serialised back; a field lost or changed in the round trip
  is a problem (the comparison of tests/k8s/validate_manifest.py);
- any other object (a custom resource such as Graphcore's IPUJob) must
  have a string apiVersion of the form GROUP/VERSION, a kind, a
  metadata.name and a metadata.namespace;
- every object must have metadata.namespace, and its POST path must be
  under /namespaces/<that namespace>/.

Prints one line per object, `ok FILE KIND NAME namespace=NS`, or the
problems. Exit status: 0 all valid, 1 a problem, 2 bad usage.

Needs Debian's python3-kubernetes and python3-yaml: run with /usr/bin/python3.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "k8s"))
import validate_manifest as vm  # noqa: E402

MODELLED = {"Pod", "Job", "Service"}


def check_object(obj, post, client):
    """Problems with one object (a list of strings)."""
    problems = []
    if not isinstance(obj, dict):
        return ["not a mapping"]
    api, kind = obj.get("apiVersion"), obj.get("kind")
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name, ns = meta.get("name"), meta.get("namespace")
    for key, value in (("apiVersion", api), ("kind", kind), ("metadata.name", name), ("metadata.namespace", ns)):
        if not isinstance(value, str) or not value:
            problems.append(f"{key}: missing or not a non-empty string")
    if post is None:
        problems.append("no '# POST <path>' comment before the object")
    elif isinstance(ns, str) and f"/namespaces/{ns}/" not in post:
        problems.append(f"POST {post} is not under namespace {ns}")
    if kind in MODELLED and api in vm.CORE_GROUPS:
        import kubernetes.client as kc
        try:
            model = client.deserialize(vm._Response(json.dumps(obj)), f"V1{kind}")
        except (ValueError, TypeError) as e:
            return problems + [f"the client refuses it: {e}"]
        back = client.sanitize_for_serialization(model)
        vm.compare(obj, back, "", [], problems)
        if not isinstance(model, getattr(kc, f"V1{kind}")):
            problems.append(f"deserialised into {type(model).__name__}, not V1{kind}")
    elif isinstance(api, str) and api in vm.CORE_GROUPS:
        problems.append(f"{api} {kind}: a core kind hetbench should not create")
    elif isinstance(api, str) and not re.fullmatch(r"[a-z0-9.-]+\.[a-z]+/v[0-9a-z]+", api):
        problems.append(f"apiVersion {api!r} is not GROUP/VERSION of a custom resource")
    return problems


def main():
    if len(sys.argv) < 2:
        print("usage: validate_k8s_dry_run.py hb_k8s.yaml...", file=sys.stderr)
        return 2
    try:
        import kubernetes.client
        import yaml
    except ImportError as e:
        print(f"validate_k8s_dry_run: {e} (Debian: python3-kubernetes, python3-yaml)", file=sys.stderr)
        return 2
    client = kubernetes.client.ApiClient()
    failed = False
    for path in sys.argv[1:]:
        text = open(path, encoding="utf-8").read()
        posts = re.findall(r"^# POST (\S+)$", text, re.M)
        objects = [d for d in yaml.safe_load_all(text) if d is not None]
        if not objects:
            print(f"{path}: no object")
            failed = True
        if len(posts) != len(objects):
            print(f"{path}: {len(objects)} objects but {len(posts)} '# POST' comments")
            failed = True
        for i, obj in enumerate(objects):
            post = posts[i] if i < len(posts) else None
            problems = check_object(obj, post, client)
            meta = obj.get("metadata") or {} if isinstance(obj, dict) else {}
            what = f"{path} {obj.get('kind') if isinstance(obj, dict) else '?'} {meta.get('name')}"
            for p in problems:
                print(f"{what}: {p}")
            if problems:
                failed = True
            else:
                print(f"ok {what} namespace={meta.get('namespace')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
