// FakeKubeApi: a KubeApi for unit tests, answering from a small in-memory
// API server that a test moves on step by step: objects by namespace,
// resource (plural) and name; POST fills metadata.name from generateName;
// list GETs filter by equality label selectors; DELETE of a Job takes its
// pods along; pod logs come from `logs`. Before the model answers, answers
// scripted with Script() for "METHOD kind" are used up in order (kind as in
// KubeApi::counts(): "jobs", "pods", "log", "workloads"...). Every request
// is recorded. Test-only (header); not thread-safe.
#pragma once

#include <deque>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "k8s/kube_api.h"
#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

class FakeKubeApi : public KubeApi {
 public:
  using json = nlohmann::json;

  // ---- What the fake answers.
  // The next request with this "METHOD kind" gets this answer.
  void Script(const std::string& key, int status, const std::string& message = "", double retry_after = -1,
              const std::string& reason = "") {
    KubeResponse r;
    r.status = status;
    r.retry_after_s = retry_after;
    if (status == 0)
      r.transport_error = message.empty() ? "connection refused" : message;
    else
      r.body = StatusBody(status, reason, message).dump();
    scripted_.emplace_back(key, r);
  }
  // The next request with this "METHOD kind" cannot be made at all (Send
  // returns an error, as when a credential plugin fails).
  void ScriptError(const std::string& key, const std::string& message) {
    KubeResponse r;
    r.status = kError;
    r.transport_error = message;
    scripted_.emplace_back(key, r);
  }

  // ---- The model. Objects are keyed "ns/plural/name".
  json* Find(const std::string& plural, const std::string& name, const std::string& ns = "hb") {
    auto it = objects.find(ns + "/" + plural + "/" + name);
    return it == objects.end() ? nullptr : &it->second;
  }
  json& Get(const std::string& plural, const std::string& name, const std::string& ns = "hb") {
    json* j = Find(plural, name, ns);
    if (!j) throw std::runtime_error("FakeKubeApi: no " + plural + " " + name);
    return *j;
  }
  std::vector<std::string> Names(const std::string& plural, const std::string& ns = "hb") const {
    std::vector<std::string> out;
    std::string prefix = ns + "/" + plural + "/";
    for (const auto& [key, obj] : objects)
      if (StartsWith(key, prefix)) out.push_back(key.substr(prefix.size()));
    return out;
  }
  void Remove(const std::string& plural, const std::string& name, const std::string& ns = "hb") {
    objects.erase(ns + "/" + plural + "/" + name);
  }

  // A pod of a Job, as the Job controller makes it: the template's labels,
  // job-name, the completion index; Pending.
  std::string AddPod(const std::string& job_name, int index = 0, const std::string& ns = "hb") {
    const json& job = Get("jobs", job_name, ns);
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
    json labels = At(job, {"spec", "template", "metadata", "labels"});
    if (!labels.is_object()) labels = json::object();
    labels["job-name"] = job_name;
    std::string name = job_name + "-" + std::to_string(index) + "-p" + std::to_string(++pod_counter_);
    pod["metadata"] = {{"name", name},
                       {"namespace", ns},
                       {"labels", labels},
                       {"annotations", {{"batch.kubernetes.io/job-completion-index", std::to_string(index)}}},
                       {"creationTimestamp", "2024-05-01T10:00:0" + std::to_string(pod_counter_ % 10) + "Z"}};
    json containers = At(job, {"spec", "template", "spec", "containers"});
    pod["spec"] = {{"containers", containers}};
    pod["status"] = {{"phase", "Pending"}};
    objects[ns + "/pods/" + name] = pod;
    return name;
  }
  void PodWaiting(const std::string& pod, const std::string& reason, const std::string& message) {
    json& p = Get("pods", pod);
    p["status"]["phase"] = "Pending";
    p["status"]["containerStatuses"] = {
        {{"name", ContainerName(p)}, {"state", {{"waiting", {{"reason", reason}, {"message", message}}}}}}};
  }
  void PodUnschedulable(const std::string& pod, const std::string& message) {
    json& p = Get("pods", pod);
    p["status"]["conditions"] = {
        {{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", message}}};
  }
  void PodRunning(const std::string& pod, const std::string& node,
                  const std::string& started = "2024-05-01T10:01:00Z") {
    json& p = Get("pods", pod);
    p["spec"]["nodeName"] = node;
    p["status"] = {
        {"phase", "Running"},
        {"startTime", started},
        {"containerStatuses", {{{"name", ContainerName(p)}, {"state", {{"running", {{"startedAt", started}}}}}}}}};
  }
  void PodTerminated(const std::string& pod, int exit_code, const std::string& reason = "",
                     const std::string& finished = "2024-05-01T10:05:00Z") {
    json& p = Get("pods", pod);
    if (!p["spec"].contains("nodeName")) p["spec"]["nodeName"] = "node-1";
    json term = {{"exitCode", exit_code}, {"startedAt", "2024-05-01T10:01:00Z"}, {"finishedAt", finished}};
    if (!reason.empty()) term["reason"] = reason;
    p["status"] = {{"phase", exit_code == 0 ? "Succeeded" : "Failed"},
                   {"containerStatuses", {{{"name", ContainerName(p)}, {"state", {{"terminated", term}}}}}}};
  }
  void JobCondition(const std::string& job, const std::string& type, const std::string& reason = "",
                    const std::string& message = "") {
    json& j = Get("jobs", job);
    j["status"]["conditions"].push_back({{"type", type},
                                         {"status", "True"},
                                         {"reason", reason},
                                         {"message", message},
                                         {"lastTransitionTime", "2024-05-01T10:06:00Z"}});
    if (type == "Complete") j["status"]["completionTime"] = "2024-05-01T10:05:30Z";
  }
  void Suspend(const std::string& job, bool suspend) { Get("jobs", job)["spec"]["suspend"] = suspend; }
  // A Kueue Workload for a Job, with one condition.
  void AddWorkload(const std::string& job, const std::string& type, const std::string& status,
                   const std::string& message) {
    json w = {{"apiVersion", "kueue.x-k8s.io/v1beta1"}, {"kind", "Workload"}};
    w["metadata"] = {{"name", "job-" + job}, {"ownerReferences", {{{"kind", "Job"}, {"name", job}}}}};
    w["status"]["conditions"] = {{{"type", type}, {"status", status}, {"reason", "Pending"}, {"message", message}}};
    objects["hb/workloads/job-" + job] = w;
  }

  // ---- What was asked.
  // "METHOD path" of every request, in order.
  std::vector<std::string> calls;
  std::vector<KubeRequest> requests;
  int CountOf(const std::string& key) const {
    auto it = counts().find(key);
    return it == counts().end() ? 0 : it->second;
  }
  // Index of the first call starting with `prefix` at or after `from`; -1 if none.
  int IndexOf(const std::string& prefix, size_t from = 0) const {
    for (size_t i = from; i < calls.size(); ++i)
      if (StartsWith(calls[i], prefix)) return static_cast<int>(i);
    return -1;
  }

  std::map<std::string, json> objects;
  std::map<std::string, std::string> logs;  // pod name -> log text

  // ---- KubeApi.
  Result<KubeResponse> Send(const KubeRequest& req) override {
    requests.push_back(req);
    calls.push_back(req.method + " " + req.path);
    Route r = Parse(req.path);
    std::string key = req.method + " " + (r.sub.empty() ? r.plural : r.sub);
    Count(key);
    for (auto it = scripted_.begin(); it != scripted_.end(); ++it) {
      if (it->first != key) continue;
      KubeResponse resp = it->second;
      scripted_.erase(it);
      if (resp.status == kError) return Status::Error(resp.transport_error);
      return resp;
    }
    return Answer(req, r);
  }
  std::string DefaultNamespace() const override { return "hb"; }
  std::string Server() const override { return "https://fake-apiserver:6443"; }

  static json StatusBody(int code, const std::string& reason, const std::string& message) {
    return {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", code < 300 ? "Success" : "Failure"},
            {"reason", reason}, {"message", message}, {"code", code}};
  }

 private:
  struct Route {
    std::string ns, plural, name, sub;
    std::map<std::string, std::string> query;
  };

  static std::string UrlDecode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += s[i] == '+' ? ' ' : s[i];
      }
    }
    return out;
  }
  static Route Parse(const std::string& path) {
    Route r;
    size_t q = path.find('?');
    std::vector<std::string> seg = Split(path.substr(0, q), '/');
    if (q != std::string::npos)
      for (const auto& kv : Split(path.substr(q + 1), '&')) {
        size_t eq = kv.find('=');
        r.query[kv.substr(0, eq)] = eq == std::string::npos ? "" : UrlDecode(kv.substr(eq + 1));
      }
    for (size_t i = 0; i + 2 < seg.size(); ++i) {
      if (seg[i] != "namespaces") continue;
      r.ns = seg[i + 1];
      r.plural = seg[i + 2];
      if (i + 3 < seg.size()) r.name = seg[i + 3];
      if (i + 4 < seg.size()) r.sub = seg[i + 4];
    }
    return r;
  }
  // The value at a path of keys, or null.
  static json At(const json& j, std::initializer_list<const char*> keys) {
    const json* cur = &j;
    for (const char* k : keys) {
      if (!cur->is_object() || !cur->contains(k)) return json();
      cur = &(*cur)[k];
    }
    return *cur;
  }
  static std::string ContainerName(const json& pod) {
    json c = At(pod, {"spec", "containers"});
    return c.is_array() && !c.empty() ? JsonField(c[0])["name"].StringOr("main") : "main";
  }
  static bool Matches(const json& obj, const std::string& selector) {
    json labels = At(obj, {"metadata", "labels"});
    for (const auto& term : Split(selector, ',')) {
      size_t eq = term.find('=');
      if (term.empty() || eq == std::string::npos) continue;
      std::string want = term.substr(eq + 1);
      if (At(labels, {term.substr(0, eq).c_str()}) != json(want)) return false;
    }
    return true;
  }
  static KubeResponse Reply(int status, const json& body) {
    KubeResponse r;
    r.status = status;
    r.body = body.dump();
    return r;
  }

  KubeResponse Answer(const KubeRequest& req, const Route& r) {
    std::string prefix = r.ns + "/" + r.plural + "/";
    if (req.method == "POST" && r.name.empty()) {
      json obj = json::parse(req.body);
      std::string name = JsonField(obj)["metadata"]["name"].StringOr("");
      if (name.empty())
        name = JsonField(obj)["metadata"]["generateName"].StringOr("obj-") + "x" + std::to_string(++name_counter_);
      if (objects.count(prefix + name))
        return Reply(409, StatusBody(409, "AlreadyExists", r.plural + " \"" + name + "\" already exists"));
      obj["metadata"]["name"] = name;
      obj["metadata"]["namespace"] = r.ns;
      obj["metadata"]["uid"] = "uid-" + name;
      obj["metadata"]["creationTimestamp"] = "2024-05-01T10:00:00Z";
      obj["status"] = json::object();
      objects[prefix + name] = obj;
      return Reply(201, obj);
    }
    if (req.method == "GET" && r.name.empty()) {
      json items = json::array();
      std::string sel = r.query.count("labelSelector") ? r.query.at("labelSelector") : "";
      for (const auto& [key, obj] : objects)
        if (StartsWith(key, prefix) && Matches(obj, sel)) items.push_back(obj);
      if (r.query.count("limit") && !items.empty()) items = json::array({items[0]});
      return Reply(200, {{"kind", "List"}, {"items", items}});
    }
    auto it = objects.find(prefix + r.name);
    if (it == objects.end()) return Reply(404, StatusBody(404, "NotFound", r.plural + " \"" + r.name + "\" not found"));
    if (req.method == "GET" && r.sub == "log") {
      auto log = logs.find(r.name);
      if (log == logs.end()) return Reply(400, StatusBody(400, "BadRequest", "container is waiting to start"));
      KubeResponse resp;
      resp.status = 200;
      resp.body = log->second;
      return resp;
    }
    if (req.method == "GET") return Reply(200, it->second);
    if (req.method == "DELETE") {
      objects.erase(it);
      if (r.plural == "jobs")
        for (auto p = objects.begin(); p != objects.end();)
          p = StartsWith(p->first, r.ns + "/pods/") && At(p->second, {"metadata", "labels", "job-name"}) == json(r.name)
                  ? objects.erase(p)
                  : std::next(p);
      return Reply(200, StatusBody(200, "", ""));
    }
    return Reply(405, StatusBody(405, "MethodNotAllowed", req.method));
  }

  static constexpr int kError = -1000;  // a scripted Send error
  std::deque<std::pair<std::string, KubeResponse>> scripted_;
  int name_counter_ = 0;
  int pod_counter_ = 0;
};

}  // namespace hb
