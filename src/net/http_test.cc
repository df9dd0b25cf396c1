#include "net/http.h"

#include <gtest/gtest.h>

#include "net/test_http_server.h"

namespace hb {
namespace {

std::unique_ptr<HttpTransport> Curl() {
  auto t = MakeCurlTransport();
  EXPECT_TRUE(t.ok()) << t.status().str();
  return std::move(t.value());
}

// A port nobody listens on: bound, never listened to, then closed.
int ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(Http, PostsBodyAndHeaders) {
  TestHttpServer server({201});
  HttpRequest req;
  req.url = server.url("/rfm");
  req.body = R"({"a": 1})";
  req.headers = {"Content-type: application/json", "Authorization: Token abc"};
  HttpResponse r = Curl()->Send(req);
  EXPECT_EQ(r.status, 201);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].head.rfind("POST /rfm HTTP/1.1", 0), 0u) << reqs[0].head;
  EXPECT_NE(reqs[0].head.find("Authorization: Token abc"), std::string::npos);
  EXPECT_NE(reqs[0].head.find("Content-type: application/json"), std::string::npos);
  EXPECT_EQ(reqs[0].body, R"({"a": 1})");
}

TEST(Http, MethodsWithoutABodySendNone) {
  TestHttpServer server({200, 200, 200});
  auto curl = Curl();
  HttpRequest req;
  req.url = server.url("/x");
  for (const char* method : {"GET", "DELETE"}) {
    req.method = method;
    EXPECT_EQ(curl->Send(req).status, 200);
  }
  req.method = "PATCH";
  req.body = "{}";
  EXPECT_EQ(curl->Send(req).status, 200);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].head.rfind("GET /x HTTP/1.1", 0), 0u) << reqs[0].head;
  EXPECT_EQ(reqs[1].head.rfind("DELETE /x HTTP/1.1", 0), 0u) << reqs[1].head;
  EXPECT_EQ(reqs[1].head.find("Content-Length"), std::string::npos) << reqs[1].head;
  EXPECT_EQ(reqs[2].head.rfind("PATCH /x HTTP/1.1", 0), 0u) << reqs[2].head;
  EXPECT_EQ(reqs[2].body, "{}");
  for (const auto& r : reqs) {
    EXPECT_NE(r.head.find("User-Agent: hetbench/"), std::string::npos) << r.head;
    EXPECT_EQ(r.head.find("Expect:"), std::string::npos) << r.head;
  }
}

// Requests to the overriding name reach the original address (here the
// test server under the name "example.invalid", which no resolver knows).
TEST(Http, OverrideServerNameConnectsToTheOriginalAddress) {
  TestHttpServer server({202});
  auto over = OverrideServerName(server.url("/"), "example.invalid");
  ASSERT_TRUE(over.ok()) << over.status().str();
  const std::string port = std::to_string(server.port());
  EXPECT_EQ(over->url, "http://example.invalid:" + port);
  EXPECT_EQ(over->connect_to, "example.invalid:" + port + ":127.0.0.1:" + port);
  HttpClientOptions o;
  o.connect_to = over->connect_to;
  auto curl = MakeCurlTransport(o);
  ASSERT_TRUE(curl.ok());
  HttpRequest req;
  req.method = "GET";
  req.url = over->url + "/api";
  EXPECT_EQ((*curl)->Send(req).status, 202);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_NE(reqs[0].head.find("Host: example.invalid:" + port), std::string::npos) << reqs[0].head;

  auto bad = OverrideServerName("not a url", "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "cannot use the server name 'x' with URL not a url");
}

TEST(Http, ConnectionRefusedIsStatusZeroWithCurlsWords) {
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/";
  HttpResponse r = Curl()->Send(req);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.Describe().find("connection failed: Couldn't connect to server"), std::string::npos) << r.Describe();
}

TEST(Http, RetriesServerErrorsThenSucceeds) {
  TestHttpServer server({503, 429});
  HttpRequest req;
  req.url = server.url();
  std::vector<double> pauses;
  Delivery d = SendWithRetries(Curl().get(), req, RetryPolicy(), [&](double s) {
    pauses.push_back(s);
    return true;
  });
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(d.attempts, 3);
  EXPECT_EQ(pauses, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(Http, ClientErrorsAreNotRetried) {
  TestHttpServer server({400});
  HttpRequest req;
  req.url = server.url();
  Delivery d = SendWithRetries(Curl().get(), req, RetryPolicy(), [](double) { return true; });
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.attempts, 1);
  EXPECT_EQ(d.last.Describe(), "HTTP 400");
}

// A fake transport for the policy's arithmetic.
struct Scripted : HttpTransport {
  std::vector<HttpResponse> answers;
  size_t next = 0;
  HttpResponse Send(const HttpRequest&) override { return answers[std::min(next++, answers.size() - 1)]; }
};

TEST(Http, GivesUpAfterMaxAttemptsAndHonoursTheTimeCap) {
  Scripted t;
  t.answers = {HttpResponse{0, "", -1, "refused"}};
  double clock = 0;
  std::vector<double> pauses;
  auto sleep = [&](double s) {
    pauses.push_back(s);
    clock += s;
    return true;
  };
  Delivery d = SendWithRetries(&t, HttpRequest(), RetryPolicy(), sleep, [&] { return clock; });
  EXPECT_EQ(d.attempts, 4);
  EXPECT_EQ(pauses, (std::vector<double>{0.5, 1.0, 2.0}));

  RetryPolicy capped;
  capped.max_total_s = 1.0;
  pauses.clear();
  clock = 0;
  d = SendWithRetries(&t, HttpRequest(), capped, sleep, [&] { return clock; });
  EXPECT_EQ(d.attempts, 2) << "the second pause (1 s) would pass the 1 s cap";
  // Retry-After is honoured but capped by max_backoff_s; sleep can abort.
  t.answers = {HttpResponse{503, "", 100, ""}};
  pauses.clear();
  d = SendWithRetries(&t, HttpRequest(), RetryPolicy(), [&](double s) {
    pauses.push_back(s);
    return false;
  });
  EXPECT_EQ(pauses, (std::vector<double>{8.0}));
  EXPECT_EQ(d.attempts, 1);
}

}  // namespace
}  // namespace hb
