// Reading the results store: sessions and cases by the filters of
// `hetbench results`, one session by id or prefix, and regexp().
#include <sqlite3.h>

#include <variant>

#include "check/regex.h"
#include "results/store_internal.h"
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
  sqlite3_result_int(ctx, re->FindFirst(s).has_value() ? 1 : 0);
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
  auto q = SqliteStmt::Prepare(db_, "SELECT session_id FROM sessions WHERE session_id = ?1 OR "
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

Result<std::vector<StoredSession>> Store::Sessions(const StoreQuery& q) {
  if (Status st = CheckPatterns(q); !st.ok()) return st;
  Where w;
  if (q.since) w.Add("s.start_time >= ?", *q.since);
  if (q.until) w.Add("s.start_time < ?", *q.until);
  if (!q.session.empty()) {
    Result<std::string> id = ResolveSession(q.session);
    if (!id.ok()) return id.status();
    w.Add("s.session_id = ?", *id);
  }
  if (NamesCases(q)) {
    Where cw;
    CaseTerms(q, &cw);
    w.terms.push_back("EXISTS (SELECT 1 FROM cases c WHERE c.session_row = s.id AND " + cw.Sql() + ")");
    w.params.insert(w.params.end(), cw.params.begin(), cw.params.end());
  }
  auto st = SqliteStmt::Prepare(db_, "SELECT " + Prefixed(kSessionColumns, "s") + " FROM sessions s WHERE " +
                                         w.Sql() + " ORDER BY s.start_time, s.id", path_);
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
  Where w;
  CaseTerms(q, &w);
  if (q.since) w.Add("c.start_time >= ?", *q.since);
  if (q.until) w.Add("c.start_time < ?", *q.until);
  if (!q.session.empty()) {
    Result<std::string> id = ResolveSession(q.session);
    if (!id.ok()) return id.status();
    w.Add("s.session_id = ?", *id);
  }
  auto st = SqliteStmt::Prepare(db_, "SELECT c.id, s.session_id, " + Prefixed(kCaseColumns, "c") +
                                         " FROM cases c JOIN sessions s ON s.id = c.session_row WHERE " + w.Sql() +
                                         " ORDER BY c.start_time, c.id", path_);
  auto perf = SqliteStmt::Prepare(db_, "SELECT name, value, unit, reference, lower_thres, upper_thres, result, "
                                       "message FROM perf WHERE case_row = ? ORDER BY id", path_);
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
    sc.c = ReadCase(*st, 2, &sc.file_sha256);
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
      sc.c.perf.push_back(std::move(p));
    }
    perf->Reset();
    out.push_back(std::move(sc));
  }
  return out;
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
