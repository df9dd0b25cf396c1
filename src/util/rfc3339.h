// Timestamps as RFC 3339 writes them ("2024-05-01T10:00:00Z",
// "2024-05-01T12:30:00.25+02:30"): the one parser for what Kubernetes,
// kubeconfig exec plugins and users (`results --since`) give hetbench.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hb {

// Strict RFC 3339: YYYY-MM-DD, 'T' (or 't' or ' '), HH:MM:SS, an optional
// fraction, and a zone: 'Z' (or 'z') or +HH:MM / -HH:MM. Seconds since the
// epoch, the fraction kept; nullopt for anything else, out-of-range fields
// included (month 13, hour 24, minute 60; second 60, a leap second, is
// taken as the next second's start).
std::optional<double> ParseRfc3339(std::string_view s);

// What people type, for command-line options: RFC 3339, or with parts left
// out. The date alone is its midnight; minutes without seconds are taken;
// a zone may also be +HHMM or +HH; no zone is the local time zone.
std::optional<double> ParseTimestamp(std::string_view s);

// `epoch` as RFC 3339 in UTC, whole seconds: "2024-05-01T10:00:00Z".
std::string FormatRfc3339(double epoch);

}  // namespace hb
