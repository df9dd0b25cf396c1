#!/usr/bin/python3
"""Tests of tests/k8s/fake_apiserver.py over real HTTPS (urllib + ssl).

Run: /usr/bin/python3 tests/k8s/fake_apiserver_test.py
One server is shared by the tests (each test uses its own namespace); the
restart test runs a second one. Everything polls with deadlines.
"""

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import http.client

PY = "/usr/bin/python3"
SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_apiserver.py")
TOKEN = "hb-test-token"


def wait_for(fn, what, timeout=10.0, interval=0.05):
    deadline = time.time() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def pid_gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True


def cond(obj, ctype):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


class Resp:
    def __init__(self, status, headers, data):
        self.status, self.headers, self.data = status, headers, data

    @property
    def json(self):
        return json.loads(self.data)

    @property
    def text(self):
        return self.data.decode()


class FakeServer:
    def __init__(self, root, *extra):
        self.root, self.extra, self.proc = root, list(extra), None

    def start(self, port=0):
        ready = os.path.join(self.root, "ready")
        if os.path.exists(ready):      # left by a SIGKILLed server: the new one removes it, but maybe late
            os.unlink(ready)
        out = open(os.path.join(self.root, "server.out"), "ab")
        self.proc = subprocess.Popen([PY, SERVER, "--dir", self.root, "--port", str(port), *self.extra],
                                     stdout=out, stderr=subprocess.STDOUT)
        out.close()
        wait_for(lambda: os.path.exists(ready) or self.proc.poll() is not None, "the server to be ready", 30)
        if self.proc.poll() is not None:
            raise AssertionError("server died: " + open(os.path.join(self.root, "server.out")).read())
        with open(os.path.join(self.root, "port")) as fh:
            self.port = int(fh.read())
        ca = os.path.join(self.root, "pki", "ca.crt")
        self.ctx = ssl.create_default_context(cafile=ca)
        self.cert_ctx = ssl.create_default_context(cafile=ca)
        self.cert_ctx.load_cert_chain(os.path.join(self.root, "pki", "client.crt"),
                                      os.path.join(self.root, "pki", "client.key"))
        return self

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def req(self, method, path, body=None, token=TOKEN, cert=False, timeout=10):
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        r = urllib.request.Request(f"https://127.0.0.1:{self.port}{path}", data=data, method=method)
        if data is not None:
            r.add_header("Content-Type", "application/json")
        if token:
            r.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(r, context=self.cert_ctx if cert else self.ctx, timeout=timeout) as resp:
                return Resp(resp.status, resp.headers, resp.read())
        except urllib.error.HTTPError as e:
            return Resp(e.code, e.headers, e.read())

    def ok(self, method, path, body=None, expect=(200, 201)):
        r = self.req(method, path, body)
        if r.status not in expect:
            raise AssertionError(f"{method} {path} -> {r.status}: {r.text}")
        return r.json if r.data and r.headers.get("Content-Type", "").startswith("application/json") else r.text

    def state(self):
        return self.ok("GET", "/fake/state")["objects"]


def job(command, gen="hb-", name=None, image="busybox", labels=None, env=None, restart="Never", **spec):
    container = {"name": "main", "image": image, "command": ["/bin/sh", "-c", command]}
    if env:
        container["env"] = env
    meta = {"name": name} if name else {"generateName": gen}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {**spec, "template": {"spec": {"restartPolicy": restart, "containers": [container]}}}}


def pod(name, image="busybox", command="echo hi", resources=None):
    c = {"name": "c", "image": image, "command": ["/bin/sh", "-c", command]}
    if resources:
        c["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": "Never", "containers": [c]}}


S = None          # the shared server
TMP = None


def setUpModule():
    global S, TMP
    TMP = tempfile.mkdtemp(prefix="fake-apiserver-test-")
    os.makedirs(os.path.join(TMP, "main"))
    S = FakeServer(os.path.join(TMP, "main"), "--pod-start-delay", "0.1", "--admit-delay", "0.3",
                   "--max-active-jobs", "3", "--ipujob-queue-delay", "0.5").start()


def tearDownModule():
    if S:
        S.stop()
    outs = []
    for sub in ("main", "restart"):
        path = os.path.join(TMP, sub, "server.out")
        if os.path.exists(path):
            with open(path) as fh:
                outs.append(fh.read())
    shutil.rmtree(TMP, ignore_errors=True)
    bad = [o for o in outs if "Traceback" in o]
    if bad:
        raise AssertionError("the server logged errors:\n" + "\n".join(bad))


class Base(unittest.TestCase):
    NS = "default"

    def create_job(self, body, ns=None):
        return S.ok("POST", f"/apis/batch/v1/namespaces/{ns or self.NS}/jobs", body)

    def get_job(self, name, ns=None):
        return S.ok("GET", f"/apis/batch/v1/namespaces/{ns or self.NS}/jobs/{name}")

    def pods(self, selector="", ns=None):
        q = "?labelSelector=" + urllib.request.quote(selector) if selector else ""
        return S.ok("GET", f"/api/v1/namespaces/{ns or self.NS}/pods{q}")["items"]

    def wait_job_cond(self, name, ctype, timeout=10):
        return wait_for(lambda: cond(self.get_job(name), ctype) if cond(self.get_job(name), ctype) and
                        cond(self.get_job(name), ctype)["status"] == "True" else None,
                        f"job {name} condition {ctype}", timeout)

    def wait_pod(self, name, pred, what, timeout=10):
        def check():
            r = S.req("GET", f"/api/v1/namespaces/{self.NS}/pods/{name}")
            return r.json if r.status == 200 and pred(r.json) else None
        return wait_for(check, f"pod {name}: {what}", timeout)

    def pod_pid(self, name):
        for o in S.state():
            if o["kind"] == "Pod" and o["metadata"]["name"] == name and o["metadata"]["namespace"] == self.NS:
                return o["_fake"].get("pid")
        return None

    def running_pod(self, selector):
        return wait_for(lambda: next((p for p in self.pods(selector) if p["status"].get("phase") == "Running"), None),
                        f"a running pod with {selector}")


def running(p):
    return p["status"].get("phase") == "Running"


def terminated(p):
    return ((p["status"].get("containerStatuses") or [{}])[0].get("state") or {}).get("terminated")


def waiting_reason(p):
    return (((p["status"].get("containerStatuses") or [{}])[0].get("state") or {}).get("waiting") or {}).get("reason")


class AuthTest(Base):
    NS = "auth"

    def test_token_cert_and_401(self):
        self.assertEqual(S.req("GET", "/api/v1/namespaces/auth/pods").status, 200)
        r = S.req("GET", "/api/v1/namespaces/auth/pods", token=None, cert=True)
        self.assertEqual(r.status, 200, r.text)
        self.assertEqual(r.json["kind"], "PodList")
        for token in (None, "wrong"):
            r = S.req("GET", "/apis/batch/v1/namespaces/auth/jobs", token=token)
            self.assertEqual(r.status, 401)
            self.assertEqual(r.json, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                      "reason": "Unauthorized", "code": 401, "message": "Unauthorized"})
        # tokens are re-read on every request
        tokens = os.path.join(S.root, "tokens")
        with open(tokens, "w") as fh:
            fh.write("rotated\n")
        try:
            self.assertEqual(S.req("GET", "/api/v1/namespaces/auth/pods").status, 401)
            self.assertEqual(S.req("GET", "/api/v1/namespaces/auth/pods", token="rotated").status, 200)
        finally:
            with open(tokens, "w") as fh:
                fh.write(TOKEN + "\n")
        with open(os.path.join(S.root, "requests.log")) as fh:
            log = [json.loads(line) for line in fh]
        self.assertIn("cert", {e["auth"] for e in log})
        self.assertTrue(any(e["status"] == 401 and e["auth"] == "none" for e in log))
        self.assertTrue(all(set(e) >= {"t", "method", "path", "query", "status", "auth"} for e in log))
        with open(os.path.join(S.root, "kubeconfig")) as fh:
            kubeconfig = fh.read()
        self.assertIn(f"server: https://127.0.0.1:{S.port}", kubeconfig)
        self.assertIn("current-context: fake-token", kubeconfig)


class JobTest(Base):
    NS = "jobs"

    def test_complete_with_log_and_expansion(self):
        env = [{"name": "GREETING", "value": "world"},
               {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
        j = self.create_job(job("echo hello-$(GREETING) pid-$$ pod=$POD; pwd", env=env))
        name = j["metadata"]["name"]
        self.assertTrue(name.startswith("hb-") and len(name) == 8, name)
        self.assertEqual(j["spec"]["completions"], 1)
        self.wait_job_cond(name, "Complete")
        j = self.get_job(name)
        self.assertEqual(j["status"]["succeeded"], 1)
        self.assertIn("completionTime", j["status"])
        [p] = self.pods(f"job-name={name}")
        self.assertEqual(p["status"]["phase"], "Succeeded")
        self.assertEqual(terminated(p)["exitCode"], 0)
        self.assertEqual(terminated(p)["reason"], "Completed")
        self.assertEqual(p["metadata"]["ownerReferences"][0]["uid"], j["metadata"]["uid"])
        self.assertEqual(p["metadata"]["labels"]["batch.kubernetes.io/controller-uid"], j["metadata"]["uid"])
        log = S.ok("GET", f"/api/v1/namespaces/jobs/pods/{p['metadata']['name']}/log?container=main")
        self.assertIn("hello-world pid-$ pod=" + p["metadata"]["name"], log)   # $$ -> $, like the kubelet
        self.assertIn(os.path.join(S.root, "work"), log)
        self.assertEqual(S.req("GET", f"/api/v1/namespaces/jobs/pods/{p['metadata']['name']}/log?container=x").status, 400)

    def test_backoff_limit_exceeded(self):
        name = self.create_job(job("echo failing; exit 3", backoffLimit=1))["metadata"]["name"]
        c = self.wait_job_cond(name, "Failed")
        self.assertEqual(c["reason"], "BackoffLimitExceeded")
        self.assertTrue(c["message"])
        self.assertEqual(self.get_job(name)["status"]["failed"], 2)
        ps = self.pods(f"job-name={name}")
        self.assertEqual(len(ps), 2)
        for p in ps:
            self.assertEqual(p["status"]["phase"], "Failed")
            self.assertEqual(terminated(p)["exitCode"], 3)
            self.assertEqual(terminated(p)["reason"], "Error")

    def test_deadline_exceeded(self):
        name = self.create_job(job("sleep 30", activeDeadlineSeconds=1))["metadata"]["name"]
        p = wait_for(lambda: next(iter(self.pods(f"job-name={name}")), None), "the pod")
        pid = wait_for(lambda: self.pod_pid(p["metadata"]["name"]), "pid")
        c = self.wait_job_cond(name, "Failed", timeout=8)
        self.assertEqual(c["reason"], "DeadlineExceeded")
        p = self.wait_pod(p["metadata"]["name"], lambda p: p["status"]["phase"] == "Failed", "Failed")
        self.assertEqual(p["status"]["reason"], "DeadlineExceeded")
        wait_for(lambda: pid_gone(pid), "the pod's process to be killed", 5)

    def test_indexed(self):
        body = job("echo index=$JOB_COMPLETION_INDEX host=$HOSTNAME", completions=2, parallelism=2,
                   completionMode="Indexed")
        body["spec"]["template"]["spec"]["subdomain"] = "svc"
        name = self.create_job(body)["metadata"]["name"]
        self.wait_job_cond(name, "Complete")
        self.assertEqual(self.get_job(name)["status"]["completedIndexes"], "0-1")
        ps = sorted(self.pods(f"job-name={name}"), key=lambda p: p["metadata"]["name"])
        self.assertEqual(len(ps), 2)
        for i, p in enumerate(ps):
            self.assertTrue(p["metadata"]["name"].startswith(f"{name}-{i}-"), p["metadata"]["name"])
            self.assertEqual(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], str(i))
            self.assertEqual(p["spec"]["hostname"], f"{name}-{i}")
            self.assertEqual(p["spec"]["subdomain"], "svc")
            log = S.ok("GET", f"/api/v1/namespaces/jobs/pods/{p['metadata']['name']}/log")
            self.assertIn(f"index={i} host={name}-{i}", log)

    def test_validation_and_conflict(self):
        bad = job("true")
        del bad["spec"]["template"]["spec"]["containers"]
        r = S.req("POST", "/apis/batch/v1/namespaces/jobs/jobs", bad)
        self.assertEqual(r.status, 422)
        self.assertEqual(r.json["reason"], "Invalid")
        self.assertIn("spec.template.spec.containers: Required value", r.json["message"])
        r = S.req("POST", "/apis/batch/v1/namespaces/jobs/jobs", job("true", restart="Always"))
        self.assertEqual(r.status, 422)
        self.assertIn('spec.template.spec.restartPolicy: Unsupported value: "Always"', r.json["message"])
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hb-svc"},
               "spec": {"clusterIP": "None", "selector": {"a": "b"}}}
        self.assertEqual(S.req("POST", "/api/v1/namespaces/jobs/services", svc).status, 201)
        r = S.req("POST", "/api/v1/namespaces/jobs/services", svc)
        self.assertEqual((r.status, r.json["reason"]), (409, "AlreadyExists"))
        self.assertEqual(r.json["message"], 'services "hb-svc" already exists')
        self.assertEqual(S.req("DELETE", "/api/v1/namespaces/jobs/services/hb-svc").status, 200)
        r = S.req("GET", "/api/v1/namespaces/jobs/services/hb-svc")
        self.assertEqual((r.status, r.json["reason"]), (404, "NotFound"))


class MoreJobTest(Base):
    NS = "more"

    def test_ttl_after_finished(self):
        name = self.create_job(job("echo bye", ttlSecondsAfterFinished=0))["metadata"]["name"]
        wait_for(lambda: S.req("GET", f"/apis/batch/v1/namespaces/more/jobs/{name}").status == 404, "TTL deletion")
        self.assertEqual(self.pods(f"job-name={name}"), [])

    def test_on_failure_restarts_count_toward_backoff(self):
        name = self.create_job(job("echo try; exit 1", restart="OnFailure", backoffLimit=1))["metadata"]["name"]
        c = self.wait_job_cond(name, "Failed")
        self.assertEqual(c["reason"], "BackoffLimitExceeded")
        [p] = self.pods(f"job-name={name}")
        self.assertEqual(p["status"]["containerStatuses"][0]["restartCount"], 2)
        self.assertEqual(p["status"]["containerStatuses"][0]["lastState"]["terminated"]["exitCode"], 1)

    def test_patch_resumes_suspended_job(self):
        name = self.create_job(job("echo resumed", suspend=True))["metadata"]["name"]
        wait_for(lambda: cond(self.get_job(name), "Suspended"), "Suspended")
        self.assertEqual(self.pods(f"job-name={name}"), [])
        r = urllib.request.Request(f"https://127.0.0.1:{S.port}/apis/batch/v1/namespaces/more/jobs/{name}",
                                   data=b'{"spec":{"suspend":false}}', method="PATCH",
                                   headers={"Authorization": "Bearer " + TOKEN,
                                            "Content-Type": "application/merge-patch+json"})
        with urllib.request.urlopen(r, context=S.ctx, timeout=10) as resp:
            self.assertFalse(json.loads(resp.read())["spec"]["suspend"])
        self.wait_job_cond(name, "Complete")
        self.assertEqual(cond(self.get_job(name), "Suspended")["status"], "False")


class DeleteTest(Base):
    NS = "del"

    def test_orphan_vs_background(self):
        a = self.create_job(job("sleep 30"))["metadata"]["name"]
        pa = self.running_pod(f"job-name={a}")["metadata"]["name"]
        pid_a = self.pod_pid(pa)
        S.ok("DELETE", f"/apis/batch/v1/namespaces/del/jobs/{a}")     # default: Orphan
        self.assertEqual(S.req("GET", f"/apis/batch/v1/namespaces/del/jobs/{a}").status, 404)
        p = S.ok("GET", f"/api/v1/namespaces/del/pods/{pa}")
        self.assertNotIn("ownerReferences", p["metadata"])
        self.assertFalse(pid_gone(pid_a))
        S.ok("DELETE", f"/api/v1/namespaces/del/pods/{pa}")
        self.assertEqual(S.req("GET", f"/api/v1/namespaces/del/pods/{pa}/log").status, 404)
        wait_for(lambda: pid_gone(pid_a), "orphaned pod's process killed on pod deletion", 5)

        b = self.create_job(job("sleep 30"))["metadata"]["name"]
        pb = self.running_pod(f"job-name={b}")["metadata"]["name"]
        pid_b = self.pod_pid(pb)
        S.ok("DELETE", f"/apis/batch/v1/namespaces/del/jobs/{b}", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                                     "propagationPolicy": "Background"})
        self.assertEqual(self.pods(f"job-name={b}"), [])
        wait_for(lambda: pid_gone(pid_b), "background-deleted pod's process killed", 5)


class KueueTest(Base):
    NS = "kueue"

    def workload(self, job_uid):
        items = S.ok("GET", f"/apis/kueue.x-k8s.io/v1beta1/namespaces/{self.NS}/workloads"
                            f"?labelSelector=kueue.x-k8s.io/job-uid%3D{job_uid}")["items"]
        return items[0] if items else None

    def test_admit_and_evict(self):
        j = self.create_job(job("sleep 30", labels={"kueue.x-k8s.io/queue-name": "lq"}, suspend=True))
        name, uid = j["metadata"]["name"], j["metadata"]["uid"]
        self.assertTrue(j["spec"]["suspend"])
        wl = self.workload(uid)
        self.assertEqual(wl["kind"], "Workload")
        self.assertEqual(wl["metadata"]["ownerReferences"][0]["uid"], uid)
        wait_for(lambda: cond(self.workload(uid), "Admitted"), "admission")
        self.assertFalse(self.get_job(name)["spec"]["suspend"])
        p = self.running_pod(f"job-name={name}")
        pid = self.pod_pid(p["metadata"]["name"])
        S.ok("POST", "/fake/evict", {"namespace": self.NS, "job": name})
        j = self.get_job(name)
        self.assertTrue(j["spec"]["suspend"])
        self.assertEqual(S.req("GET", f"/api/v1/namespaces/kueue/pods/{p['metadata']['name']}").status, 404)
        wait_for(lambda: pid_gone(pid), "evicted pod killed", 5)
        wl = self.workload(uid)
        self.assertEqual(cond(wl, "Evicted")["reason"], "Preempted")
        self.assertEqual(cond(wl, "QuotaReserved")["status"], "False")
        wait_for(lambda: cond(self.get_job(name), "Suspended"), "Suspended condition")
        p2 = self.running_pod(f"job-name={name}")                      # re-admitted
        self.assertNotEqual(p2["metadata"]["name"], p["metadata"]["name"])
        self.assertEqual(cond(self.workload(uid), "Admitted")["status"], "True")
        S.ok("DELETE", f"/apis/batch/v1/namespaces/kueue/jobs/{name}?propagationPolicy=Background")
        self.assertIsNone(self.workload(uid))

    def test_hold_queue(self):
        j = self.create_job(job("true", labels={"kueue.x-k8s.io/queue-name": "hold"}))
        name, uid = j["metadata"]["name"], j["metadata"]["uid"]
        wl = self.workload(uid)
        c = cond(wl, "QuotaReserved")
        self.assertEqual((c["status"], c["reason"]), ("False", "Pending"))
        self.assertIn("insufficient quota for nvidia.com/gpu", c["message"])
        wait_for(lambda: cond(self.get_job(name), "Suspended"), "Suspended condition")
        time.sleep(0.5)          # longer than --admit-delay: still not admitted
        self.assertTrue(self.get_job(name)["spec"]["suspend"])
        self.assertEqual(self.pods(f"job-name={name}"), [])
        S.ok("DELETE", f"/apis/batch/v1/namespaces/kueue/jobs/{name}")


class QuotaTest(Base):
    NS = "quota"

    def test_max_active_jobs(self):
        held = {"kueue.x-k8s.io/queue-name": "hold"}
        for i in range(3):
            self.create_job(job("true", name=f"q{i}", labels=held))
        r = S.req("POST", "/apis/batch/v1/namespaces/quota/jobs", job("true", name="q3"))
        self.assertEqual((r.status, r.json["reason"]), (403, "Forbidden"))
        self.assertEqual(r.json["message"], 'jobs "q3" is forbidden: exceeded quota: hb-quota, requested: '
                                             'count/jobs.batch=1, used: count/jobs.batch=3, limited: count/jobs.batch=3')
        S.ok("DELETE", "/apis/batch/v1/namespaces/quota/jobs/q0")
        self.create_job(job("true", name="q3"))
        for n in ("q1", "q2", "q3"):
            S.ok("DELETE", f"/apis/batch/v1/namespaces/quota/jobs/{n}?propagationPolicy=Background")


class ScenarioTest(Base):
    NS = "scen"

    def create_pod(self, body):
        return S.ok("POST", "/api/v1/namespaces/scen/pods", body)

    def test_images_and_unschedulable(self):
        self.create_pod(pod("pull", image="fake/pull-error:v1"))
        self.create_pod(pod("oom", image="fake/oom", command="echo eating; exit 0"))
        self.create_pod(pod("gpu", resources={"limits": {"nvidia.com/gpu": "16"}, "requests": {"cpu": "500m"}}))
        self.create_pod(pod("invalid", image="fake/invalid"))
        self.create_pod(pod("config", image="fake/config-error"))
        self.wait_pod("pull", lambda p: waiting_reason(p) == "ImagePullBackOff", "ImagePullBackOff")
        r = S.req("GET", "/api/v1/namespaces/scen/pods/pull/log")
        self.assertEqual(r.status, 400)
        self.assertIn('container "c" in pod "pull" is waiting to start', r.json["message"])
        p = self.wait_pod("oom", lambda p: p["status"]["phase"] == "Failed", "Failed")
        self.assertEqual((terminated(p)["reason"], terminated(p)["exitCode"]), ("OOMKilled", 137))
        self.assertIn("eating", S.ok("GET", "/api/v1/namespaces/scen/pods/oom/log"))
        p = self.wait_pod("gpu", lambda p: cond(p, "PodScheduled"), "PodScheduled")
        c = cond(p, "PodScheduled")
        self.assertEqual((c["status"], c["reason"]), ("False", "Unschedulable"))
        self.assertEqual(c["message"], "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.")
        self.assertEqual(p["status"]["phase"], "Pending")
        r = S.req("GET", "/api/v1/namespaces/scen/pods/gpu/log")
        self.assertEqual(r.status, 400)
        self.assertEqual(r.json["message"], 'container "c" in pod "gpu" is waiting to start: ContainerCreating')
        self.wait_pod("invalid", lambda p: waiting_reason(p) == "InvalidImageName", "InvalidImageName")
        self.wait_pod("config", lambda p: waiting_reason(p) == "CreateContainerConfigError", "config error")
        S.ok("DELETE", "/api/v1/namespaces/scen/pods?labelSelector=")   # deletecollection
        self.assertEqual(self.pods(), [])


class FaultTest(Base):
    NS = "faults"

    def test_injected_answers(self):
        path = "/api/v1/namespaces/faults/pods"
        S.ok("POST", "/fake/faults", [{"match": f"GET {path}", "status": 429, "count": 1, "retry_after": 2},
                                      {"match": f"GET {path}", "status": 500, "count": 1}])
        r = S.req("GET", path + "?labelSelector=a%3Db")
        self.assertEqual((r.status, r.headers["Retry-After"], r.json["reason"]), (429, "2", "TooManyRequests"))
        r = S.req("GET", path)
        self.assertEqual((r.status, r.json["reason"], r.json["kind"]), (500, "InternalError", "Status"))
        self.assertEqual(S.req("GET", path).status, 200)
        S.ok("POST", "/fake/faults", {"match": "POST /apis/batch/v1/namespaces/faults/jobs", "drop": True})
        with self.assertRaises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
            S.req("POST", "/apis/batch/v1/namespaces/faults/jobs", job("true"))
        S.ok("POST", "/fake/faults", {"match": "POST /apis/batch/v1/namespaces/faults/jobs", "status": 500,
                                      "after": True})             # performed, then the answer is lost
        r = S.req("POST", "/apis/batch/v1/namespaces/faults/jobs", job("true", name="lost"))
        self.assertEqual(r.status, 500)
        self.assertEqual(S.req("GET", "/apis/batch/v1/namespaces/faults/jobs/lost").status, 200)
        self.assertEqual(S.req("POST", "/apis/batch/v1/namespaces/faults/jobs", job("true", name="lost")).status, 409)
        S.ok("DELETE", "/apis/batch/v1/namespaces/faults/jobs/lost?propagationPolicy=Background")
        S.ok("POST", "/fake/faults", {"match": "DELETE /api/", "status": 409, "count": 5})
        self.assertEqual(len(S.ok("GET", "/fake/faults")["faults"]), 1)
        S.ok("DELETE", "/fake/faults")
        self.assertEqual(S.ok("GET", "/fake/faults")["faults"], [])
        self.assertEqual(S.ok("GET", "/apis/batch/v1/namespaces/faults/jobs")["items"], [])   # dropped: not created


class CustomResourceTest(Base):
    NS = "cr"

    def test_lifecycle(self):
        base = "/apis/example.hetbench.io/v1/namespaces/cr/fakeipujobs"
        go = os.path.join(TMP, "cr-go")
        body = {"apiVersion": "example.hetbench.io/v1", "kind": "FakeIPUJob",
                "metadata": {"generateName": "ipu-", "labels": {"hetbench.io/case": "abc"}},
                "spec": {"replicas": 2, "template": {"spec": {"containers": [
                    {"name": "ipu", "image": "graphcore/poplar", "command": ["sh", "-c", f"while [ ! -e {go} ]; do sleep 0.05; done; echo ipu-ok"]}]}}}}
        name = S.ok("POST", base, body)["metadata"]["name"]
        wait_for(lambda: (S.ok("GET", f"{base}/{name}").get("status") or {}).get("state") == "Running", "Running")
        open(go, "w").close()
        o = wait_for(lambda: (lambda o: o if o.get("status", {}).get("state") == "Completed" else None)(
            S.ok("GET", f"{base}/{name}")), "Completed")
        self.assertEqual(o["kind"], "FakeIPUJob")
        lst = S.ok("GET", base)
        self.assertEqual((lst["kind"], lst["items"][0]["kind"]), ("FakeIPUJobList", "FakeIPUJob"))
        ps = self.pods(f"fake.hetbench.io/owner={name},hetbench.io/case")
        self.assertEqual(len(ps), 2)
        everywhere = S.ok("GET", f"/api/v1/pods?labelSelector=fake.hetbench.io/owner%3D{name}")["items"]
        self.assertEqual(len(everywhere), 2)
        self.assertIn("ipu-ok", S.ok("GET", f"/api/v1/namespaces/cr/pods/{ps[0]['metadata']['name']}/log"))
        S.ok("DELETE", f"{base}/{name}")
        self.assertEqual(S.req("GET", f"{base}/{name}").status, 404)
        self.assertEqual(self.pods(f"fake.hetbench.io/owner={name}"), [])


def ipujob(command, instances=1, gen="hb-ipu-", labels=None, **spec):
    """An IPUJob as Graphcore's examples write it; the worker runs `command`."""
    tmpl = {"spec": {"containers": [{"name": "worker", "image": "graphcore/pytorch:3.3.0",
                                     "command": ["/bin/sh", "-c", command]}]}}
    if labels:
        tmpl["metadata"] = {"labels": labels}
    return {"apiVersion": "graphcore.ai/v1alpha1", "kind": "IPUJob", "metadata": {"generateName": gen},
            "spec": {"jobInstances": instances, "ipusPerJobInstance": "1", "workers": {"template": tmpl}, **spec}}


class IPUJobTest(Base):
    """The operator mode: what Graphcore's IPU Operator does with an IPUJob."""
    NS = "ipu"
    BASE = "/apis/graphcore.ai/v1alpha1/namespaces/ipu/ipujobs"
    ORDER = ["Pending", "Starting", "Running", "Completed", "Failed"]

    def follow(self, name, until, seen, timeout=10):
        """Polls the IPUJob (GET and list, alternately) until status.launcherStatus
        is `until`, recording every value seen; returns the object."""
        n = [0]

        def check():
            n[0] += 1
            if n[0] % 2:
                o = S.ok("GET", f"{self.BASE}/{name}")
            else:
                o = next(i for i in S.ok("GET", self.BASE)["items"] if i["metadata"]["name"] == name)
            value = (o.get("status") or {}).get("launcherStatus")
            if value and (not seen or seen[-1] != value):
                seen.append(value)
            return o if value == until else None
        return wait_for(check, f"IPUJob {name}: launcherStatus {until} (seen {seen})", timeout, 0.02)

    def assert_in_order(self, seen):
        ranks = [self.ORDER.index(v) for v in seen]
        self.assertEqual(ranks, sorted(ranks), seen)

    def test_completes_with_pods_labels_and_logs(self):
        go = os.path.join(TMP, "ipu-go")
        created = S.ok("POST", self.BASE, ipujob(f"while [ ! -e {go} ]; do sleep 0.05; done; echo ipu-ok $HOSTNAME",
                                                 instances=2, labels={"hetbench.io/case": "c1"}))
        name = created["metadata"]["name"]
        self.assertNotIn("status", created)             # the operator has not reconciled it yet
        self.assertEqual(created["spec"]["workers"]["replicas"], 1)     # the CRD's default
        selector = f"ipujob={name}"
        seen = []
        o = self.follow(name, "Pending", seen)
        self.assertEqual(o["status"]["desiredReplicas"], 2)
        self.assertEqual(o["status"]["currentReplicas"], 0)
        self.assertFalse(o["status"]["iPUPartitionCreated"])
        self.assertEqual(self.pods(selector), [])          # queued: no pods yet
        o = self.follow(name, "Running", seen)
        self.assertTrue(o["status"]["iPUPartitionCreated"])
        self.assertEqual((o["status"]["currentReplicas"], o["status"]["workersStatus"]), (2, {"active": 2}))
        ps = self.pods(f"{selector},hetbench.io/case=c1")   # the template's labels reach the pods
        self.assertEqual(sorted(p["metadata"]["name"] for p in ps), [f"{name}-worker-0", f"{name}-worker-1"])
        for p in ps:
            self.assertEqual([(r["kind"], r["name"]) for r in p["metadata"]["ownerReferences"]], [("IPUJob", name)])
            self.assertEqual((p["spec"]["restartPolicy"], p["spec"]["hostNetwork"]), ("Never", True))
        open(go, "w").close()
        o = self.follow(name, "Completed", seen)
        self.assertEqual(seen[0], "Pending")
        self.assert_in_order(seen)
        st = o["status"]
        self.assertEqual((st["lastMessage"], st["currentReplicas"], st["desiredReplicas"], st["workersStatus"]),
                         ("All instances done", 0, 2, {"succeeded": 2}))
        self.assertIn("completionTime", st)
        lst = S.ok("GET", self.BASE)
        self.assertEqual((lst["kind"], lst["items"][0]["kind"]), ("IPUJobList", "IPUJob"))
        for p in self.pods(selector):                        # cleanPodPolicy None: the pods stay
            self.assertEqual(p["status"]["phase"], "Succeeded")
            pname = p["metadata"]["name"]
            self.assertEqual(S.ok("GET", f"/api/v1/namespaces/ipu/pods/{pname}/log"), f"ipu-ok {pname}\n")
        S.ok("DELETE", f"{self.BASE}/{name}")
        self.assertEqual(S.req("GET", f"{self.BASE}/{name}").status, 404)
        self.assertEqual(self.pods(selector), [])

    def test_worker_failure_fails_the_ipujob(self):
        name = S.ok("POST", self.BASE, ipujob("echo about-to-fail; exit 3"))["metadata"]["name"]
        seen = []
        self.follow(name, "Pending", seen)
        o = self.follow(name, "Failed", seen)
        self.assert_in_order(seen)
        self.assertNotIn("Completed", seen)
        self.assertEqual(o["status"]["lastMessage"], f"worker pod {name}-worker-0 failed (exit code 3, Error)")
        self.assertEqual(o["status"]["workersStatus"], {"failed": 1})
        [p] = self.pods(f"ipujob={name}")
        self.assertEqual((p["status"]["phase"], terminated(p)["exitCode"]), ("Failed", 3))
        self.assertEqual(S.ok("GET", f"/api/v1/namespaces/ipu/pods/{name}-worker-0/log"), "about-to-fail\n")
        S.ok("DELETE", f"{self.BASE}/{name}")
        self.assertEqual(self.pods(f"ipujob={name}"), [])

    def test_delete_kills_workers_respawn_and_clean_pod_policy(self):
        name = S.ok("POST", self.BASE, ipujob("sleep 30", instances=2))["metadata"]["name"]
        self.follow(name, "Running", [])
        pids = [self.pod_pid(f"{name}-worker-{i}") for i in range(2)]
        self.assertTrue(all(pids), pids)
        # a deleted worker pod is created again, under the same name
        old = S.ok("GET", f"/api/v1/namespaces/ipu/pods/{name}-worker-1")["metadata"]["uid"]
        S.ok("DELETE", f"/api/v1/namespaces/ipu/pods/{name}-worker-1")
        wait_for(lambda: pid_gone(pids[1]), "the deleted worker's process to end")
        self.follow(name, "Starting", [])
        self.wait_pod(f"{name}-worker-1", lambda p: p["metadata"]["uid"] != old and running(p), "re-created", 10)
        self.follow(name, "Running", [])
        S.ok("DELETE", f"{self.BASE}/{name}")
        self.assertEqual(self.pods(f"ipujob={name}"), [])
        wait_for(lambda: pid_gone(pids[0]), "the workers' processes to be killed")
        # cleanPodPolicy All: the pods are deleted when the IPUJob ends
        name = S.ok("POST", self.BASE, ipujob("true", cleanPodPolicy="All"))["metadata"]["name"]
        self.follow(name, "Completed", [])
        self.assertEqual(self.pods(f"ipujob={name}"), [])

    def test_schema_validation(self):
        def refused(body):
            r = S.req("POST", self.BASE, body)
            self.assertEqual((r.status, r.json["reason"]), (422, "Invalid"), r.text)
            return r.json["message"]
        body = ipujob("true")
        body["spec"]["ipusPerJobInstance"] = 4
        self.assertIn('spec.ipusPerJobInstance: Invalid value: "integer": spec.ipusPerJobInstance in body must be '
                      'of type string: "integer"', refused(body))
        body = ipujob("true", restartPolicy="Never")
        self.assertIn('spec.restartPolicy in body must be of type object: "string"', refused(body))
        body = ipujob("true", cleanPodPolicy="Always")
        self.assertIn('spec.cleanPodPolicy: Unsupported value: "Always"', refused(body))
        body = ipujob("true")
        del body["spec"]["jobInstances"]
        body["spec"]["workers"]["template"]["spec"]["containers"] = []
        msg = refused(body)
        self.assertIn("spec.jobInstances: Required value", msg)
        self.assertIn("spec.workers.template.spec.containers: Required value", msg)
        ok = S.ok("POST", self.BASE, ipujob("true", restartPolicy={"type": "OnFailure"}))
        self.assertEqual(ok["spec"]["restartPolicy"], {"type": "OnFailure", "backOffLimit": 3})
        S.ok("DELETE", f"{self.BASE}/{ok['metadata']['name']}")


class RestartTest(unittest.TestCase):
    def test_sigkill_and_restart_keeps_state_and_pods(self):
        root = os.path.join(TMP, "restart")
        os.makedirs(root)
        shutil.copytree(os.path.join(S.root, "pki"), os.path.join(root, "pki"))   # skip key generation
        srv = FakeServer(root, "--pod-start-delay", "0.1").start()
        try:
            base = "/apis/batch/v1/namespaces/rs/jobs"
            go = os.path.join(root, "go")
            name = srv.ok("POST", base, job(f"echo started; while [ ! -e {go} ]; do sleep 0.05; done; "
                                            "echo finished"))["metadata"]["name"]

            def running_pod():
                items = srv.ok("GET", f"/api/v1/namespaces/rs/pods?labelSelector=job-name%3D{name}")["items"]
                return next((p for p in items if p["status"].get("phase") == "Running"), None)
            p = wait_for(running_pod, "running pod")
            pname, started = p["metadata"]["name"], p["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
            pid = next(o for o in srv.state() if o["metadata"]["name"] == pname)["_fake"]["pid"]
            port = srv.port
            srv.kill()
            self.assertFalse(pid_gone(pid), "the pod's process must survive the server")
            srv.start(port)
            self.assertEqual(srv.port, port)
            p2 = srv.ok("GET", f"/api/v1/namespaces/rs/pods/{pname}")
            self.assertEqual(p2["metadata"]["uid"], p["metadata"]["uid"])
            self.assertEqual(p2["status"]["phase"], "Running")
            self.assertEqual(p2["status"]["containerStatuses"][0]["state"]["running"]["startedAt"], started)
            self.assertGreaterEqual(int(p2["metadata"]["resourceVersion"]), int(p["metadata"]["resourceVersion"]))
            self.assertFalse(cond(srv.ok("GET", f"{base}/{name}"), "Complete"))
            open(go, "w").close()
            wait_for(lambda: cond(srv.ok("GET", f"{base}/{name}"), "Complete"), "Complete after restart", 10)
            log = srv.ok("GET", f"/api/v1/namespaces/rs/pods/{pname}/log")
            self.assertIn("started", log)
            self.assertIn("finished", log)
        finally:
            srv.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
