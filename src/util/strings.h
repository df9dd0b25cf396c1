// Small string helpers shared by every layer: splitting, trimming, joining,
// shell quoting, durations ("90", "10m", "1h30m") and "did you mean"
// suggestions for misspelt names. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hb {

std::vector<std::string> Split(std::string_view s, char sep);
std::string Trim(std::string_view s);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ReplaceAll(std::string s, std::string_view from, std::string_view to);

// Splits s into words as Python's shlex.split does (POSIX mode): blanks
// separate words; '...' and "..." quote (backslash escapes \ " $ ` in
// double quotes); a backslash outside quotes escapes the next character.
// An unterminated quote ends at the end of s.
std::vector<std::string> ShellWords(std::string_view s);

// Quotes s for a POSIX shell so it reaches the program as one literal word.
// Words made only of safe characters are returned unchanged.
std::string ShellQuote(std::string_view s);
// `s` with every regular-expression metacharacter escaped, so that it
// matches itself (ECMAScript and PCRE2).
std::string RegexEscape(std::string_view s);

// Parses a time limit: a plain number of seconds ("90", "1.5"), or a sequence
// of <number><unit> with units d, h, m, s ("1h30m", "10m", "2d"), or
// "HH:MM:SS" / "MM:SS". Returns seconds, or nullopt when s is not a duration.
std::optional<double> ParseDuration(std::string_view s);
// Parses a size in bytes: a plain number ("1048576"), or a number with a
// unit: K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024, as Slurm reads
// --mem=4G), KB, MB, GB, TB (powers of 1000), B. "1.5GiB" is allowed;
// nullopt for anything else, a negative size or one above 2^63.
std::optional<uint64_t> ParseByteSize(std::string_view s);
// "1 GiB", "512 MiB", "1.5 KiB", "100 B": the largest binary unit, up to
// 3 significant digits after the point.
std::string FormatByteSize(uint64_t bytes);
// Formats seconds as Slurm-style "D-HH:MM:SS" or "HH:MM:SS".
std::string FormatHMS(double seconds);

// Levenshtein distance, and the closest candidate within a small distance
// (or empty) for "did you mean" messages.
size_t EditDistance(std::string_view a, std::string_view b);
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);
// ", did you mean 'x'?" or "" when no candidate is close.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// UTF-8, for the formats that require it (JSON, XML, HTML, SQLite text):
// everything else carries text as the bytes it came as. DecodeUtf8 decodes
// the code point at s[i] and advances i; a byte that does not start a
// well-formed sequence (overlong forms, surrogates and code points above
// U+10FFFF included) gives U+FFFD and advances one byte. AppendUtf8 encodes
// one code point. ValidUtf8 is `s` with every such byte replaced by U+FFFD;
// `replaced` (when given) tells whether any was.
uint32_t DecodeUtf8(std::string_view s, size_t& i);
void AppendUtf8(std::string& out, uint32_t cp);
std::string ValidUtf8(std::string_view s, bool* replaced = nullptr);

// Formats a double with up to `digits` significant digits, no trailing zeros.
std::string FormatNumber(double v, int digits = 6);

// repr(float) as Python 3 writes it (float_repr_style 'short', as
// Python/pystrtod.c): the shortest digits that read back as v, in fixed
// notation for exponents from -4 to 15, else scientific: "2.0", "0.1",
// "1e-05", "1e+16", "inf", "nan".
std::string PyFloatRepr(double v);

}  // namespace hb
