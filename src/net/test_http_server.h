// TestHttpServer: a tiny HTTP/1.1 server on 127.0.0.1 (a free port) for
// unit tests of HTTP senders. It answers each request with the next status
// of a script (then 200), closes the connection after each answer, and
// keeps every request (headers and body). For tests only (a header, so no
// library links it). Its thread serves one connection at a time; requests()
// is safe to call from the test's thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hb {

class TestHttpServer {
 public:
  struct Request {
    std::string head;  // request line and headers
    std::string body;
  };

  explicit TestHttpServer(std::deque<int> statuses = {}) : statuses_(std::move(statuses)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      std::abort();
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~TestHttpServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }

  int port() const { return port_; }
  std::string url(const std::string& path = "/") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::vector<Request> requests() {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      Handle(c);
      ::close(c);
    }
  }

  void Handle(int c) {
    std::string data;
    char buf[4096];
    size_t body_at = std::string::npos, want = 0;
    while (body_at == std::string::npos || data.size() < body_at + want) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) return;
      ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) return;
      data.append(buf, static_cast<size_t>(n));
      if (body_at == std::string::npos && (body_at = data.find("\r\n\r\n")) != std::string::npos) {
        body_at += 4;
        size_t cl = Lower(data.substr(0, body_at)).find("content-length:");
        if (cl != std::string::npos) want = std::strtoul(data.c_str() + cl + 15, nullptr, 10);
      }
    }
    int status = 200;
    {
      std::lock_guard<std::mutex> l(mu_);
      requests_.push_back({data.substr(0, body_at), data.substr(body_at, want)});
      if (!statuses_.empty()) {
        status = statuses_.front();
        statuses_.pop_front();
      }
    }
    std::string reply = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    (void)!::write(c, reply.data(), reply.size());
  }

  static std::string Lower(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  }

  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::deque<int> statuses_;
  std::vector<Request> requests_;
  std::thread thread_;
};

}  // namespace hb
