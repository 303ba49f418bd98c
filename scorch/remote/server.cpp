// scorch-server's loop (server.h): a ROUTER socket for the clients and a monitor socket that reports their
// disconnections (connections are counted, and a session found, by the file descriptor messages came on).
#include "scorch/remote/server.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <deque>
#include <zmq.hpp>

#include <algorithm>
#include <chrono>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "scorch/core/error.h"
#include "scorch/core/secret.h"
#include "scorch/ir/ir_msgpack.h"

namespace scorch::remote {

namespace server_detail {  // named: Server::State holds these types (-Wsubobject-linkage in unity builds)
struct SessionSlot {
  std::unique_ptr<SessionBase> session;
  int fd = -1;
};

bool loopback(const std::string& endpoint) {
  return endpoint.starts_with("tcp://127.") || endpoint.starts_with("tcp://localhost:") ||
         endpoint.starts_with("tcp://[::1]:") || endpoint.starts_with("ipc://") || endpoint.starts_with("inproc://");
}

/// The address of the client on connection fd ("?" when unknown).
std::string address_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  char text[INET6_ADDRSTRLEN] = "?";
  if (fd < 0 || ::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return text;
  if (address.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, text, sizeof text);
  else if (address.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr, text, sizeof text);
  return text;
}

/// Failed hellos of one client address: it is answered again only after `until` (50 ms doubling to 5 s).
struct Throttle {
  int failures = 0;
  std::chrono::steady_clock::time_point until{};
};

Reply error_of(const char* type, const std::string& what) {
  Reply reply;
  reply.kind = ReplyKind::Error;
  reply.error_type = type;
  reply.error_what = "[scorch-server] " + what;
  return reply;
}
}  // namespace server_detail
using namespace server_detail;

struct Server::State {
  ServerOptions options;
  SessionFactory factory;
  zmq::context_t context{1};
  zmq::socket_t router{context, zmq::socket_type::router};
  zmq::socket_t monitor{context, zmq::socket_type::pair};
  zmq::socket_t zap{context, zmq::socket_type::router};  // ZAP: the PLAIN handshake's token check, before any message
  std::map<std::string, SessionSlot> sessions;           // by the client's routing id
  std::map<std::string, Throttle> refused;               // by the client's address: failed hellos and handshakes
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::vector<zmq::message_t>>> zap_later;
  std::set<int> connected;  // the file descriptors of connections that sent a message (all presented the token)
  std::deque<std::chrono::steady_clock::time_point> admitting;  // tokens accepted, no message yet

  /// Whether another connection may complete its handshake (admissions without a message for 5 s are dropped).
  bool room_for_a_connection(std::chrono::steady_clock::time_point now) {
    while (!admitting.empty() && admitting.front() < now - std::chrono::seconds(5)) admitting.pop_front();
    return connected.size() + admitting.size() < options.max_connections;
  }

  /// When a client address that just failed (at now) may hear back: now, or later after earlier failures. Counts it.
  std::chrono::steady_clock::time_point refuse_until(const std::string& address,
                                                     std::chrono::steady_clock::time_point now) {
    if (refused.size() > 4096) refused.clear();
    Throttle& t = refused[address];
    auto answer_at = std::max(now, t.until);
    t.failures = std::min(t.failures + 1, 7);
    t.until = std::min(answer_at + std::chrono::milliseconds(std::min(25 << t.failures, 5000)),
                       now + std::chrono::seconds(5));
    return answer_at;
  }

  void reply(const std::string& peer, const Reply& reply) {
    std::vector<std::byte> bytes = encode_reply(reply);
    router.send(zmq::buffer(peer), zmq::send_flags::sndmore);
    router.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::dontwait);
  }
  /// Sends error to peer now if a request of kind (none: unreadable) expects a reply, else with the session's next
  /// reply: ops and seeds get none of their own.
  void owe(const std::string& peer, std::optional<RequestKind> kind, const Reply& error) {
    auto slot = sessions.find(peer);
    if (!kind || expects_reply(*kind)) reply(peer, error);
    else if (slot != sessions.end()) slot->second.session->fail_op(error);
  }
  void on_message(const std::string& peer, zmq::message_t& body);
  void on_request(const std::string& peer, int fd, Request& request);
  void on_monitor();
  void on_zap();
  void send_due_zap_replies();
};

// A ZAP request (RFC 27 over a ROUTER: routing id, empty, then version, request id, domain, address, identity,
// mechanism, credentials) answered 200 for PLAIN with the server's token as password, else 400 — a wrong one after
// the address's throttle. A peer that fails the handshake never sends a message: nothing of it is buffered.
void Server::State::on_zap() {
  std::vector<zmq::message_t> frames;
  for (bool more = true; more && frames.size() < 16;) {
    zmq::message_t frame;
    if (!zap.recv(frame, zmq::recv_flags::dontwait)) return;
    more = frame.more();
    frames.push_back(std::move(frame));
  }
  if (frames.size() < 8) return;
  auto text = [&](size_t i) { return i < frames.size() ? frames[i].to_string() : std::string(); };
  bool ok = text(7) == "PLAIN" && frames.size() >= 10 && same_secret(text(9), options.token);
  auto now = std::chrono::steady_clock::now();
  bool full = ok && !room_for_a_connection(now);  // 500: the client reports a full server
  if (ok && !full) admitting.push_back(now);
  std::vector<zmq::message_t> answer;
  for (size_t i = 0; i < 2; ++i) answer.emplace_back(frames[i].data(), frames[i].size());  // routing id, empty
  answer.emplace_back(std::string("1.0"));
  answer.emplace_back(frames[3].data(), frames[3].size());  // request id
  answer.emplace_back(std::string(full ? "500" : ok ? "200" : "400"));
  answer.emplace_back(std::string(full ? "server full" : ok ? "OK" : "bad token"));
  answer.emplace_back(std::string(ok && !full ? "scorch" : ""));
  answer.emplace_back();
  auto at = ok ? now : refuse_until(text(5), now);
  if (!ok && zap_later.size() >= 1024) return;  // a flood of failing handshakes: left to time out (ZMQ_HANDSHAKE_IVL)
  zap_later.emplace_back(at, std::move(answer));
  send_due_zap_replies();
}

void Server::State::send_due_zap_replies() {
  auto now = std::chrono::steady_clock::now();
  for (auto it = zap_later.begin(); it != zap_later.end();) {
    if (it->first > now) {
      ++it;
      continue;
    }
    for (size_t i = 0; i < it->second.size(); ++i)
      (void)zap.send(it->second[i], i + 1 < it->second.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    it = zap_later.erase(it);
  }
}

void Server::State::on_message(const std::string& peer, zmq::message_t& body) {
  std::span<const std::byte> bytes(static_cast<const std::byte*>(body.data()), body.size());
  auto refuse = [&](const Reply& error) {
    // An op or a seed gets no reply of its own: its error waits for the session's next one (a peer without a
    // session is told so at its next request).
    owe(peer, peek_request_kind(bytes), error);
  };
  if (bytes.size() > options.max_message_bytes)
    return refuse(error_of("ValueError", "a message of " + std::to_string(bytes.size()) +
                                             " bytes exceeds the limit of " +
                                             std::to_string(options.max_message_bytes)));
  Request request;
  try {
    request = decode_request(bytes);
  } catch (const Error& e) { return refuse(error_of("FormatError", e.what())); }
  int fd = -1;
  try {
    fd = body.get(ZMQ_SRCFD);
  } catch (const zmq::error_t&) {}
  if (fd >= 0 && !connected.contains(fd)) {  // a connection's first message
    if (connected.size() >= options.max_connections)
      return refuse(error_of("DeviceError", "the server has as many connections as it takes (--max-connections " +
                                                std::to_string(options.max_connections) + ")"));
    connected.insert(fd);
    if (!admitting.empty()) admitting.pop_front();
  }
  on_request(peer, fd, request);
}

void Server::State::on_request(const std::string& peer, int fd, Request& request) {
  auto slot = sessions.find(peer);
  if (request.kind == RequestKind::Hello) {
    if (!same_secret(request.token, options.token)) {
      // A client guessing tokens hears back at most once per 50 ms · 2^failures (5 s at most); its other hellos
      // go unanswered. A right token is never held back.
      auto now = std::chrono::steady_clock::now();
      if (refuse_until(address_of(fd), now) > now) return;
      return reply(peer, error_of("DeviceError", "bad token: session refused"));
    }
    if (slot != sessions.end()) sessions.erase(slot);
    if (sessions.size() >= options.max_sessions)
      return reply(peer, error_of("DeviceError",
                                  "the server has its limit of " + std::to_string(options.max_sessions) + " sessions"));
    sessions[peer] = SessionSlot{factory(options.session_memory_bytes), fd};
    return reply(peer, Reply{});
  }
  if (slot == sessions.end()) {
    if (expects_reply(request.kind))
      reply(peer, error_of("DeviceError", "no session: send hello with the server's token first"));
    return;
  }
  slot->second.session->release(request.drops);
  if (request.kind == RequestKind::Stats) {
    Reply stats;
    stats.kind = ReplyKind::Stats;
    for (auto& [id, s] : sessions) {
      stats.stats.sessions += 1;
      stats.stats.tensors += s.session->tensors();
      stats.stats.bytes += s.session->bytes();
    }
    return reply(peer, stats);
  }
  if (request.kind == RequestKind::Bye) {
    sessions.erase(slot);
    return reply(peer, Reply{});
  }
  slot->second.fd = fd;
  if (auto answer = slot->second.session->handle(request)) reply(peer, *answer);
}

void Server::State::on_monitor() {
  zmq::message_t event, address;
  if (!monitor.recv(event, zmq::recv_flags::dontwait)) return;
  if (event.more()) (void)monitor.recv(address, zmq::recv_flags::dontwait);
  if (event.size() < 6) return;
  uint16_t kind;
  int32_t value;
  std::memcpy(&kind, event.data(), 2);
  std::memcpy(&value, static_cast<const char*>(event.data()) + 2, 4);
  if (kind != ZMQ_EVENT_DISCONNECTED) return;
  connected.erase(value);
  std::erase_if(sessions, [&](const auto& entry) { return entry.second.fd == value; });
}

Server::Server(ServerOptions options, SessionFactory factory, bool allow_remote) : state_(std::make_unique<State>()) {
  if (options.token.empty())
    throw ValueError("scorch-server", "no token: set SCORCH_SERVER_TOKEN or pass --token-file");
  if (!allow_remote && !loopback(options.endpoint))
    throw ValueError("scorch-server", options.endpoint +
                                          " is not a loopback address (pass --allow-remote to serve "
                                          "other machines)");
  state_->options = std::move(options);
  state_->factory = std::move(factory);
  auto& router = state_->router;
  state_->zap.set(zmq::sockopt::linger, 0);
  state_->zap.bind("inproc://zeromq.zap.01");  // the handler libzmq asks during every PLAIN handshake
  router.set(zmq::sockopt::plain_server, 1);   // clients present the token before they can send anything
  router.set(zmq::sockopt::zap_domain, std::string("scorch"));
  router.set(zmq::sockopt::linger, 0);
  router.set(zmq::sockopt::router_mandatory, 0);
  uint64_t cap = std::min<uint64_t>(state_->options.max_message_bytes, uint64_t{1} << 50) + (uint64_t{1} << 16);
  router.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(cap));
  router.set(zmq::sockopt::rcvhwm, ServerOptions::kQueuedMessages);  // then ZeroMQ stops reading the socket
  try {
    router.bind(state_->options.endpoint);
  } catch (const zmq::error_t& e) {
    throw DeviceError("scorch-server", "cannot listen on " + state_->options.endpoint + ": " + e.what());
  }
  std::string monitor_endpoint = "inproc://scorch-server-monitor-" + std::to_string(reinterpret_cast<uintptr_t>(this));
  zmq_socket_monitor(router.handle(), monitor_endpoint.c_str(), ZMQ_EVENT_DISCONNECTED);
  state_->monitor.connect(monitor_endpoint);
}

Server::~Server() = default;

std::string Server::endpoint() const { return state_->router.get(zmq::sockopt::last_endpoint); }

void Server::run() {
  auto& s = *state_;
  while (!stopping_) {
    zmq::pollitem_t items[] = {{s.router.handle(), 0, ZMQ_POLLIN, 0},
                               {s.monitor.handle(), 0, ZMQ_POLLIN, 0},
                               {s.zap.handle(), 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 3, std::chrono::milliseconds(s.zap_later.empty() ? 100 : 10));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      throw;
    }
    if (items[2].revents & ZMQ_POLLIN) s.on_zap();
    s.send_due_zap_replies();
    if (items[1].revents & ZMQ_POLLIN) s.on_monitor();
    if (!(items[0].revents & ZMQ_POLLIN)) continue;
    zmq::message_t peer, body;
    if (!s.router.recv(peer, zmq::recv_flags::dontwait)) continue;
    std::string peer_id(static_cast<const char*>(peer.data()), peer.size());
    if (!peer.more()) continue;
    (void)s.router.recv(body, zmq::recv_flags::none);
    bool extra = body.more();
    while (body.more()) {  // a well-formed request is one frame: drain the rest
      zmq::message_t rest;
      (void)s.router.recv(rest, zmq::recv_flags::none);
      if (!rest.more()) break;
    }
    auto kind = [&] { return peek_request_kind({static_cast<const std::byte*>(body.data()), body.size()}); };
    try {
      if (extra) s.owe(peer_id, kind(), error_of("FormatError", "a request is one frame"));
      else s.on_message(peer_id, body);
    } catch (const std::exception& e) {
      // Whatever went wrong (a reply too large to encode, a backend that failed to start a session), the server
      // goes on; the peer hears of it where its request expects a reply.
      s.owe(peer_id, kind(), error_reply(e));
    }
  }
}

ServerStats Server::stats() const {
  ServerStats out;
  for (auto& [id, s] : state_->sessions) {
    out.sessions += 1;
    out.tensors += s.session->tensors();
    out.bytes += s.session->bytes();
  }
  return out;
}

}  // namespace scorch::remote
