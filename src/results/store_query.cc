// Reading the results store: sessions and cases by the filters of
// `hetbench results`, one session by id or prefix, and regexp().
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <variant>

#include <nlohmann/json.hpp>

#include "results/store_internal.h"
#include "util/json_field.h"
#include "util/log.h"
#include "util/regex.h"
#include "util/strings.h"

namespace hb {

namespace {

void RegexpFunction(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* re = static_cast<Regex*>(sqlite3_get_auxdata(ctx, 0));
  if (!re) {
    const unsigned char* p = sqlite3_value_text(argv[0]);
    Result<Regex> compiled = Regex::Compile(p ? reinterpret_cast<const char*>(p) : "");
    if (!compiled.ok()) {
      sqlite3_result_error(ctx, compiled.status().message().c_str(), -1);
      return;
    }
    re = new Regex(std::move(compiled).value());
    sqlite3_set_auxdata(ctx, 0, re, [](void* r) { delete static_cast<Regex*>(r); });
    re = static_cast<Regex*>(sqlite3_get_auxdata(ctx, 0));  // set_auxdata may have freed it
    if (!re) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  const unsigned char* text = sqlite3_value_text(argv[1]);
  std::string_view s = text ? reinterpret_cast<const char*>(text) : "";
  auto found = re->FindFirst(s);
  if (!found.ok()) {
    sqlite3_result_error(ctx, found.status().message().c_str(), -1);
    return;
  }
  sqlite3_result_int(ctx, found->has_value() ? 1 : 0);
}

// A WHERE clause and its parameters, built filter by filter.
struct Where {
  std::vector<std::string> terms;
  std::vector<std::variant<std::string, double, int64_t>> params;

  void Add(const std::string& term) { terms.push_back(term); }
  template <typename T>
  void Add(const std::string& term, T value) {
    terms.push_back(term);
    params.emplace_back(value);
  }
  std::string Sql() const { return terms.empty() ? "1" : "(" + Join(terms, ") AND (") + ")"; }
  void Bind(SqliteStmt& st) const {
    for (size_t i = 0; i < params.size(); ++i)
      std::visit([&](const auto& v) { st.Bind(static_cast<int>(i + 1), v); }, params[i]);
  }
};

// The filters that name cases (of table alias c).
void CaseTerms(const StoreQuery& q, Where* w) {
  if (!q.names.empty()) {
    std::vector<std::string> any;
    for (size_t i = 0; i < q.names.size(); ++i) any.push_back("c.name REGEXP ? OR c.display_name REGEXP ?");
    w->terms.push_back(Join(any, " OR "));
    for (const auto& n : q.names) {
      w->params.emplace_back(n);
      w->params.emplace_back(n);
    }
  }
  for (const auto& t : q.tags) w->Add("EXISTS (SELECT 1 FROM json_each(c.tags) WHERE json_each.value REGEXP ?)", t);
  if (!q.system.empty()) w->Add("c.system = ?", q.system);
  if (!q.partition.empty()) w->Add("c.partition = ?", q.partition);
}

bool NamesCases(const StoreQuery& q) {
  return !q.names.empty() || !q.tags.empty() || !q.system.empty() || !q.partition.empty();
}

// Bad patterns are the user's input: say which one and why.
Status CheckPatterns(const StoreQuery& q) {
  for (const auto* list : {&q.names, &q.tags})
    for (const auto& p : *list) {
      Result<Regex> re = Regex::Compile(p);
      if (!re.ok()) return Status::Error((list == &q.names ? "-n/--name: " : "-t/--tag: ") + re.status().message());
    }
  return Status::OK();
}

// s.session_id is one of `ids` (none: no condition).
void SessionTerm(const std::vector<std::string>& ids, Where* w) {
  if (ids.empty()) return;
  w->terms.push_back("s.session_id IN (" + Join(std::vector<std::string>(ids.size(), "?"), ",") + ")");
  w->params.insert(w->params.end(), ids.begin(), ids.end());
}

// The filters of a query over cases (alias c) joined with their sessions
// (alias s); `session_ids` are the query's sessions, resolved.
Where CaseWhere(const StoreQuery& q, const std::vector<std::string>& session_ids) {
  Where w;
  CaseTerms(q, &w);
  if (q.since) w.Add("c.start_time >= ?", *q.since);
  if (q.until) w.Add("c.start_time < ?", *q.until);
  SessionTerm(session_ids, &w);
  return w;
}

std::string Prefixed(const std::vector<std::string>& cols, const std::string& alias) {
  std::vector<std::string> out;
  for (const auto& c : cols) out.push_back(alias + "." + c);
  return Join(out, ",");
}

}  // namespace

Status RegisterRegexp(sqlite3* db) {
  int rc = sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, RegexpFunction,
                                   nullptr, nullptr);
  if (rc != SQLITE_OK) return Status::Error(std::string("cannot register regexp(): ") + sqlite3_errmsg(db));
  return Status::OK();
}

Result<std::string> Store::ResolveSession(const std::string& id) {
  auto q = SqliteStmt::Prepare(db_,
                               "SELECT session_id FROM sessions WHERE session_id = ?1 OR "
                               "substr(session_id, 1, length(?1)) = ?1 ORDER BY session_id = ?1 DESC LIMIT 6",
                               path_);
  if (!q.ok()) return q.status();
  q->Bind(1, id);
  std::vector<std::string> found;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (q->Text(0) == id) return id;
    found.push_back(q->Text(0));
  }
  if (found.empty()) return Status::Error("no session '" + id + "' in the results store " + path_);
  if (found.size() > 1)
    return Status::Error("session '" + id + "' is ambiguous: it starts " + Join(found, ", ") +
                         (found.size() > 5 ? ", ..." : ""));
  return found[0];
}

Result<std::vector<std::string>> Store::ResolveSessions(const StoreQuery& q) {
  std::vector<std::string> ids;
  if (!q.session.empty()) ids.push_back(q.session);
  ids.insert(ids.end(), q.sessions.begin(), q.sessions.end());
  for (auto& id : ids) {
    Result<std::string> full = ResolveSession(id);
    if (!full.ok()) return full.status();
    id = *full;
  }
  return ids;
}

Result<std::vector<StoredSession>> Store::Sessions(const StoreQuery& q) {
  if (Status st = CheckPatterns(q); !st.ok()) return st;
  Where w;
  if (q.since) w.Add("s.start_time >= ?", *q.since);
  if (q.until) w.Add("s.start_time < ?", *q.until);
  auto ids = ResolveSessions(q);
  if (!ids.ok()) return ids.status();
  SessionTerm(*ids, &w);
  if (NamesCases(q)) {
    Where cw;
    CaseTerms(q, &cw);
    w.terms.push_back("EXISTS (SELECT 1 FROM cases c WHERE c.session_row = s.id AND " + cw.Sql() + ")");
    w.params.insert(w.params.end(), cw.params.begin(), cw.params.end());
  }
  auto st = SqliteStmt::Prepare(
      db_,
      "SELECT " + Prefixed(kSessionColumns, "s") + " FROM sessions s WHERE " + w.Sql() + " ORDER BY s.start_time, s.id",
      path_);
  if (!st.ok()) return st.status();
  w.Bind(*st);
  std::vector<StoredSession> out;
  for (;;) {
    Result<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back(ReadSession(*st, 0));
  }
  return out;
}

Result<std::vector<StoredCase>> Store::Cases(const StoreQuery& q) {
  if (Status st = CheckPatterns(q); !st.ok()) return st;
  auto ids = ResolveSessions(q);
  if (!ids.ok()) return ids.status();
  Where w = CaseWhere(q, *ids);
  auto st = SqliteStmt::Prepare(db_,
                                "SELECT c.id, s.session_id, " + Prefixed(kCaseColumns, "c") +
                                    " FROM cases c JOIN sessions s ON s.id = c.session_row WHERE " + w.Sql() +
                                    " ORDER BY c.start_time, c.id",
                                path_);
  auto perf = SqliteStmt::Prepare(db_,
                                  "SELECT name, value, unit, reference, lower_thres, upper_thres, result, "
                                  "message, figure_of_merit, better FROM perf WHERE case_row = ? ORDER BY id",
                                  path_);
  if (!st.ok()) return st.status();
  if (!perf.ok()) return perf.status();
  w.Bind(*st);
  std::vector<StoredCase> out;
  for (;;) {
    Result<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    StoredCase sc;
    sc.session_id = st->Text(1);
    sc.c = ReadCase(*st, 2, &sc.file_sha256, &sc.utf8_replaced);
    perf->Bind(1, st->Int(0));
    for (;;) {
      Result<bool> prow = perf->Step();
      if (!prow.ok()) return prow.status();
      if (!*prow) break;
      PerfResult p;
      p.name = perf->Text(0);
      p.value = perf->Double(1);
      p.unit = perf->Text(2);
      if (!perf->IsNull(3))
        p.reference = Reference{perf->Double(3), perf->OptDouble(4), perf->OptDouble(5), p.unit, {}};
      p.verdict = perf->Text(6);
      p.message = perf->Text(7);
      p.figure_of_merit = perf->Int(8) != 0;
      p.better = perf->Text(9);
      sc.c.perf.push_back(std::move(p));
    }
    perf->Reset();
    out.push_back(std::move(sc));
  }
  return out;
}

Result<PerfTable> Store::Perf(const StoreQuery& q) {
  if (Status st = CheckPatterns(q); !st.ok()) return st;
  auto ids = ResolveSessions(q);
  if (!ids.ok()) return ids.status();
  Where w = CaseWhere(q, *ids);
  // Two scans: the matching cases (a few per session), then their values
  // (the many), each value naming its case by row id. Series are found by
  // integers, not by strings, so a million values read in about a second.
  // The file is read through mmap (no copy per page) for these scans.
  if (Status st = Exec("PRAGMA mmap_size = 1073741824"); !st.ok()) return st;
  // One read transaction: both scans see the same snapshot of the store.
  if (Status st = Exec("BEGIN"); !st.ok()) return st;
  struct EndRead {
    Store* s;
    // A read transaction has nothing to lose: a failed COMMIT only ends it.
    ~EndRead() {
      if (Status st = s->Exec("COMMIT"); !st.ok()) LogRecord(kLogVerbose, "store: ending a read: " + st.message());
    }
  } end_read{this};
  const std::string from = " FROM cases c JOIN sessions s ON s.id = c.session_row WHERE " + w.Sql();
  auto cases = SqliteStmt::Prepare(
      db_,
      "SELECT c.id, s.id, s.session_id, s.start_time, s.system, s.hostname, c.name, c.display_name, c.system, "
      "c.partition, c.environ, c.parameters, c.start_time, c.repetition, c.num_tasks, c.num_gpus_per_node, "
      "c.result, c.scaling_axes" +
          from,
      path_);
  if (!cases.ok()) return cases.status();
  w.Bind(*cases);
  struct CaseInfo {
    int group, session;
    double time;
    int repetition, num_tasks, num_gpus_per_node;
    bool passed;
  };
  PerfTable t;
  std::vector<std::pair<int64_t, CaseInfo>> case_rows;  // by case row id
  std::unordered_map<int64_t, int> session_index;
  std::unordered_map<std::string, int> group_index;  // name, display name, place, parameters
  std::vector<PerfSeriesKey> groups;
  std::string key;
  for (;;) {
    Result<bool> row = cases->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    auto [sit, new_session] = session_index.try_emplace(cases->Int(1), static_cast<int>(t.sessions.size()));
    if (new_session) t.sessions.push_back({cases->Text(2), cases->Text(4), cases->Text(5), cases->Double(3)});
    key.clear();
    for (int col : {6, 7, 8, 9, 10, 11}) {
      key += cases->TextView(col);
      key += '\x1f';
    }
    auto [git, new_group] = group_index.try_emplace(key, static_cast<int>(groups.size()));
    if (new_group) {
      groups.push_back(
          {cases->Text(6), cases->Text(7), cases->Text(8), cases->Text(9), cases->Text(10), "", "", cases->Text(11)});
      if (cases->TextView(17) != "[]") {  // the test's scaling_axes: a JSON list of names
        nlohmann::json axes = nlohmann::json::parse(cases->Text(17), nullptr, false);
        for (const auto& a : axes.is_array() ? axes : nlohmann::json::array())
          if (const std::string* name = JsonStringPtr(a)) groups.back().scaling_axes.push_back(*name);
      }
    }
    case_rows.push_back(
        {cases->Int(0),
         {git->second, sit->second, cases->Double(12), static_cast<int>(cases->Int(13)),
          static_cast<int>(cases->Int(14)), static_cast<int>(cases->Int(15)), cases->TextView(16) == "pass"}});
  }
  // Row ids are dense where cases were only ever added: then a value finds
  // its case by subtraction, else by binary search.
  std::sort(case_rows.begin(), case_rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const int64_t first_row = case_rows.empty() ? 0 : case_rows.front().first;
  const int64_t span = case_rows.empty() ? 0 : case_rows.back().first - first_row + 1;
  std::vector<int> dense;
  if (span > 0 && span <= 4 * static_cast<int64_t>(case_rows.size()) + 1024) {
    dense.assign(static_cast<size_t>(span), -1);
    for (size_t i = 0; i < case_rows.size(); ++i) dense[case_rows[i].first - first_row] = static_cast<int>(i);
  }
  auto find_case = [&](int64_t row) -> const CaseInfo* {
    if (!dense.empty()) {
      int64_t at = row - first_row;
      if (at < 0 || at >= span || dense[at] < 0) return nullptr;
      return &case_rows[dense[at]].second;
    }
    auto it =
        std::lower_bound(case_rows.begin(), case_rows.end(), row, [](const auto& a, int64_t r) { return a.first < r; });
    return it != case_rows.end() && it->first == row ? &it->second : nullptr;
  };
  const std::string perf_where = w.terms.empty() ? std::string() : " WHERE p.case_row IN (SELECT c.id" + from + ")";
  // Counted first, so that the million points are allocated once.
  auto count = SqliteStmt::Prepare(db_, "SELECT count(*) FROM perf p" + perf_where, path_);
  if (!count.ok()) return count.status();
  w.Bind(*count);
  if (Result<bool> row = count->Step(); !row.ok()) return row.status();
  t.points.reserve(static_cast<size_t>(count->Int(0)));
  auto perf = SqliteStmt::Prepare(
      db_,
      "SELECT p.case_row, p.name, p.unit, p.value, p.reference, p.lower_thres, p.upper_thres, p.figure_of_merit, "
      "p.better FROM perf p" +
          perf_where,
      path_);
  if (!perf.ok()) return perf.status();
  w.Bind(*perf);
  // (group, variable, unit) -> series; variables and units interned.
  std::map<std::pair<std::string, std::string>, int> var_index;
  std::unordered_map<uint64_t, int> series_index;
  std::string last_var, last_unit;
  int var_id = -1;
  for (;;) {
    Result<bool> row = perf->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    const CaseInfo* c = find_case(perf->Int(0));
    if (!c) continue;  // not a selected case
    std::string_view var = perf->TextView(1), unit = perf->TextView(2);
    if (var_id < 0 || var != last_var || unit != last_unit) {
      last_var = var;
      last_unit = unit;
      var_id = var_index.try_emplace({last_var, last_unit}, static_cast<int>(var_index.size())).first->second;
    }
    uint64_t skey = (static_cast<uint64_t>(c->group) << 32) | static_cast<uint32_t>(var_id);
    auto [kit, new_series] = series_index.try_emplace(skey, static_cast<int>(t.series.size()));
    if (new_series) {
      PerfSeriesKey k = groups[c->group];
      k.var = last_var;
      k.unit = last_unit;
      t.series.push_back(std::move(k));
    }
    PerfSeriesKey& sk = t.series[kit->second];  // the latest declaration wins
    sk.figure_of_merit = perf->Int(7) != 0;
    if (std::string_view better = perf->TextView(8); better != sk.better) sk.better = better;
    PerfPoint p;
    p.series = kit->second;
    p.session = c->session;
    p.value = perf->Double(3);
    if ((p.has_ref = !perf->IsNull(4))) p.ref = perf->Double(4);
    if ((p.has_lower = !perf->IsNull(5))) p.lower = perf->Double(5);
    if ((p.has_upper = !perf->IsNull(6))) p.upper = perf->Double(6);
    p.time = c->time;
    p.repetition = c->repetition;
    p.num_tasks = c->num_tasks;
    p.num_gpus_per_node = c->num_gpus_per_node;
    p.passed = c->passed;
    t.points.push_back(p);
  }
  // Sessions oldest first, and the points' indices with them.
  std::vector<int> order(t.sessions.size()), where(t.sessions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return t.sessions[a].start_time < t.sessions[b].start_time; });
  std::vector<PerfTableSession> sorted;
  for (size_t i = 0; i < order.size(); ++i) {
    where[order[i]] = static_cast<int>(i);
    sorted.push_back(std::move(t.sessions[order[i]]));
  }
  t.sessions = std::move(sorted);
  for (auto& p : t.points) p.session = where[p.session];
  // By time; a case's values (same time and session) by series. Values are
  // stored as their sessions ran, so usually in order already.
  auto before = [](const PerfPoint& a, const PerfPoint& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.session != b.session ? a.session < b.session : a.series < b.series;
  };
  if (!std::is_sorted(t.points.begin(), t.points.end(), before)) std::sort(t.points.begin(), t.points.end(), before);
  return t;
}

Result<StoredSession> Store::FindSession(const std::string& id_or_prefix) {
  StoreQuery q;
  q.session = id_or_prefix;
  Result<std::vector<StoredSession>> found = Sessions(q);
  if (!found.ok()) return found.status();
  if (found->empty()) return Status::Error("no session '" + id_or_prefix + "' in the results store " + path_);
  return found->front();
}

}  // namespace hb
