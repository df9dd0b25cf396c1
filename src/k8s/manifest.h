// Manifests for the Kubernetes backend: the objects hetbench creates for
// one test case, and the payload that carries the case's files into the pod
// and its result files back out.
//
// A generated case is a batch/v1 Job (Indexed, with a headless Service,
// when it needs more than one pod). Fields are those of batch/v1 as of
// Kubernetes 1.22 unless the options ask for newer ones (job_spec_extra).
// A user-supplied manifest (K8sOptions::manifest) is taken as written,
// given hetbench's labels (on the object and its pod templates), a
// generateName in place of its name (unless keep_name), the partition's
// namespace, and the payload as the command of each pod template's first
// container that has neither command nor args. A Pod without a
// restartPolicy gets Never.
//
// The payload: the pod runs `/bin/sh -c BOOTSTRAP`. BOOTSTRAP recreates the
// case's stage directory at the same path (from a base64 tar.gz carried in
// an environment variable, or from the staging volume), runs the build
// script (if any) then the job script with stdout to the log and stderr to
// a file, and finally writes the requested result files to the log between
// two marker lines carrying a per-job nonce:
//   @@hetbench-files <nonce> begin@@
//   <base64 of a tar.gz of fetch_files and the stderr file>
//   @@hetbench-files <nonce> end <exit status>@@
// and exits with the job script's status. ParsePodLog splits such a log back
// into the job's stdout and the files. Needs /bin/sh, tar, gzip and base64
// in the image (busybox has them).
//
// Pure functions (they read the stage directory from disk); thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "k8s/k8s_options.h"
#include "sched/job.h"
#include "util/status.h"

namespace hb {

// Labels hetbench puts on everything it creates.
inline constexpr char kLabelManagedBy[] = "app.kubernetes.io/managed-by";  // = "hetbench"
inline constexpr char kLabelSession[] = "hetbench.io/session";
inline constexpr char kLabelCase[] = "hetbench.io/case";          // a hash of the case id (label values are limited)
inline constexpr char kAnnotationCase[] = "hetbench.io/case-id";  // the full case id
inline constexpr char kLabelQueue[] = "kueue.x-k8s.io/queue-name";

// What to create for one case, in creation order (the Service before the
// Job). Each object is complete except metadata.name, which the API server
// fills from metadata.generateName (the Service has a name of its own: the
// Job's pods need it before the Job exists).
struct ManifestSet {
  std::vector<nlohmann::json> objects;
  // Index in `objects` of the object whose state is followed (the Job, the
  // Pod or the custom resource).
  size_t main = 0;
  // "jobs", "pods" or the custom resource's plural; api path prefix of each
  // object, e.g. "/apis/batch/v1", "/api/v1".
  std::string main_kind;
  // Per object, parallel to `objects`: the API path prefix ("/apis/batch/v1",
  // "/api/v1", "/apis/graphcore.ai/v1alpha1") and the resource's plural
  // ("jobs", "services", "ipujobs"). CollectionPath() joins them.
  std::vector<std::string> api_prefixes, plurals;
  int pods_expected = 1;  // completions (or parallelism) of the main object; 1 for a custom resource
  std::string nonce;      // the payload's marker nonce ("" when no pod carries the payload)
};

// "PREFIX/namespaces/NS/PLURAL" for object i: where to POST it (add
// "/NAME" for GET and DELETE).
std::string CollectionPath(const ManifestSet& set, size_t i, const std::string& ns);

// Builds the objects for a job whose scripts are written (script_path, and
// build_script_path when set) in job.workdir. Devices: num_gpus_per_node
// asks for the "gpu" resource, num_devices_per_node for the others, each
// mapped to a resource name by opts.device_resources (an unmapped device
// type is an error naming it).
Result<ManifestSet> MakeManifests(const Job& job, const K8sOptions& opts);

// The payload command for a job (what MakeManifests puts in the container).
// Fails when the stage directory is too big to travel in the manifest
// (over 512 KiB packed) and no staging volume is configured.
//
// `command` and `env` are literal (what the process must see): MakeManifests
// writes them through EscapeKubeExpansion, since Kubernetes expands $(VAR)
// and $$ in a container's command and env values. The packed stage travels
// base64-encoded in HETBENCH_STAGE_TGZ, then HETBENCH_STAGE_TGZ_1, _2...
// (Linux refuses a single environment string over 128 KiB). The job
// script's stderr goes to job.stderr_path when that lies in the stage
// directory (else to its base name there; hb_job.err when it is unset); a
// build script's output goes to its name with .out / .err for .sh; all of
// these come back with fetch_files.
// With a staging volume nothing is packed: the stage directory is
// staging_pod_path + (workdir less staging_host_path), linked to workdir's
// path when the two differ, and the result files stay on the volume (the
// markers come without an archive).
struct Payload {
  std::vector<std::string> command;                      // {"/bin/sh", "-c", BOOTSTRAP}
  std::vector<std::pair<std::string, std::string>> env;  // e.g. HETBENCH_STAGE_TGZ
  std::string nonce;
};
Result<Payload> MakePayload(const Job& job, const K8sOptions& opts);

// s with every '$' doubled, so that Kubernetes' $(VAR) expansion in a
// container's command, args and env values gives back s.
std::string EscapeKubeExpansion(const std::string& s);

// Splits a pod log produced by the payload: the job's stdout (everything
// before the begin marker), the exit status the payload reported (-1 when
// the end marker is missing: the pod was killed), and the result files as
// the tar.gz the pod wrote (decoded; empty when there is none). A log
// without markers is all stdout. Bad base64 is an error naming the pod.
struct PodOutput {
  std::string stdout_text;
  int exit_status = -1;
  std::string archive;  // tar.gz bytes
};
Result<PodOutput> ParsePodLog(const std::string& log, const std::string& nonce, const std::string& pod_name);

// Unpacks a tar.gz (from ParsePodLog) into `dir` in process (ExtractTarGz,
// tar_gz.h), refusing absolute paths, "..", links and special files.
Status ExtractArchive(const std::string& archive, const std::string& dir);

}  // namespace hb
