// `hetbench report -o report.html`: the HTML report of a session (with the
// history before it), a time range, or the whole store.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/commands.h"
#include "report/report.h"
#include "util/fs.h"
#include "util/strings.h"
#include "version.h"

namespace hb {

namespace {

int Fail(const Status& st) {
  std::fprintf(stderr, "hetbench: error: %s\n", st.str().c_str());
  return 2;
}

std::string Scope(const ResultsCommandOptions& f, const std::string& session) {
  std::vector<std::string> parts;
  if (!session.empty()) parts.push_back("session " + session + " and the runs before it");
  if (!f.since.empty() || !f.until.empty())
    parts.push_back("runs from " + (f.since.empty() ? std::string("the first") : f.since) + " to " +
                    (f.until.empty() ? std::string("now") : f.until));
  if (!f.names.empty()) parts.push_back("tests matching " + Join(f.names, " or "));
  if (!f.tags.empty()) parts.push_back("tags " + Join(f.tags, " and "));
  if (!f.system.empty()) parts.push_back("on " + f.system);
  return parts.empty() ? "the whole results store" : Join(parts, ", ");
}

}  // namespace

int ReportCommand(const ReportCommandOptions& o) {
  if (o.max_points < 1) return Fail(Status::Error("--max-points must be at least 1"));
  if (!(o.cv_limit >= 0)) return Fail(Status::Error("--cv-limit must be a percentage >= 0"));
  auto query = MakeStoreQuery(o.filters);
  if (!query.ok()) return Fail(query.status());
  auto opened = OpenResultsStore(o.filters, false);
  if (!opened.ok()) return Fail(opened.status());
  Store& store = **opened;

  ReportInput in;
  StoreQuery q = *query;
  std::string session;
  double session_start = 0;
  if (!q.session.empty()) {
    // One session: it is the latest, and the history is what came before.
    auto s = store.FindSession(q.session);
    if (!s.ok()) return Fail(s.status());
    session = s->info.session_id;
    session_start = s->info.start_time;
    q.session.clear();
  }
  auto sessions = store.Sessions(q);
  if (!sessions.ok()) return Fail(sessions.status());
  auto table = store.Perf(q);
  if (!table.ok()) return Fail(table.status());
  in.table = std::move(*table);
  if (!session.empty()) {
    // History is the sessions that started before the chosen one; it goes last.
    auto later = [&](const std::string& id, double start) {
      return id != session && (start > session_start || (start == session_start && id > session));
    };
    std::erase_if(*sessions, [&](const StoredSession& x) { return later(x.info.session_id, x.info.start_time); });
    auto it = std::find_if(sessions->begin(), sessions->end(),
                           [&](const StoredSession& x) { return x.info.session_id == session; });
    if (it != sessions->end()) std::rotate(it, it + 1, sessions->end());
    const auto& ts = in.table.sessions;
    std::erase_if(in.table.points,
                  [&](const PerfPoint& p) { return later(ts[p.session].session_id, ts[p.session].start_time); });
  }
  in.sessions = std::move(*sessions);
  if (!in.sessions.empty()) {
    StoreQuery latest = q;
    latest.since.reset();
    latest.until.reset();
    latest.session = in.sessions.back().info.session_id;
    auto cases = store.Cases(latest);
    if (!cases.ok()) return Fail(cases.status());
    in.latest_cases = std::move(*cases);
  }
  in.title = o.title.empty() ? "hetbench report" : o.title;
  in.scope = Scope(o.filters, session);
  in.store_path = store.path();
  in.version = HETBENCH_VERSION;
  in.generated = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  in.max_points = o.max_points;
  in.cv_limit_pct = o.cv_limit;
  std::string html = RenderReport(in);
  if (Status st = WriteFileAtomic(o.output, html); !st.ok()) return Fail(st);
  std::printf("Wrote %s (%zu sessions, %zu value series, %zu values; %.1f MiB)\n", o.output.c_str(), in.sessions.size(),
              in.table.series.size(), in.table.points.size(), html.size() / 1048576.0);
  return 0;
}

}  // namespace hb
