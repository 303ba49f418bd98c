// Remote's connection to a scorch-server (client.h) and its primitives (remote_tensor.h).
#include "scorch/remote/client.h"

#include <cstring>

#include <zmq.hpp>

#include <cstdlib>
#include <map>
#include <optional>

#include "scorch/core/error.h"

namespace scorch::remote {

namespace {
constexpr const char* kDefaultEndpoint = "tcp://127.0.0.1:7878";

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// The process's connections and the options and seed new ones take; never destroyed (handles may outlive main).
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Client>> clients;
  std::map<std::string, ClientOptions> options;
  std::optional<uint64_t> seed;
  static Registry& get() {
    static auto* registry = new Registry;
    return *registry;
  }
};

std::chrono::milliseconds default_timeout() {
  std::string ms = env_or("SCORCH_REMOTE_TIMEOUT_MS", "60000");
  char* end = nullptr;
  long long v = std::strtoll(ms.c_str(), &end, 10);
  if (*end || v <= 0) throw ValueError("Remote", "SCORCH_REMOTE_TIMEOUT_MS='" + ms + "' is not a positive count");
  return std::chrono::milliseconds(v);
}
}  // namespace

std::string RemoteDevice::resolved() const {
  return endpoint.empty() ? env_or("SCORCH_REMOTE_ENDPOINT", kDefaultEndpoint) : endpoint;
}

/// The ZeroMQ context and DEALER socket (one context per connection: a lost one is closed with its threads).
struct Client::Socket {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::dealer};
};

Client::Client(std::string endpoint, ClientOptions options)
    : endpoint_(std::move(endpoint)), options_(std::move(options)), socket_(std::make_unique<Socket>()) {
  if (options_.token.empty()) options_.token = env_or("SCORCH_REMOTE_TOKEN", "");
  if (options_.timeout.count() == 0) options_.timeout = default_timeout();
  auto& s = socket_->socket;
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::reconnect_ivl, -1);  // a new connection would be a new session: fail instead
  s.set(zmq::sockopt::rcvtimeo, static_cast<int>(options_.timeout.count()));
  s.set(zmq::sockopt::sndtimeo, static_cast<int>(options_.timeout.count()));
  s.set(zmq::sockopt::plain_username, std::string("scorch"));  // the token opens the ZeroMQ handshake itself
  s.set(zmq::sockopt::plain_password, options_.token);
  std::string monitor_endpoint = "inproc://scorch-client-" + std::to_string(reinterpret_cast<uintptr_t>(this));
  zmq_socket_monitor(s.handle(), monitor_endpoint.c_str(),
                     ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                         ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL);
  zmq::socket_t monitor(socket_->context, zmq::socket_type::pair);
  monitor.set(zmq::sockopt::rcvtimeo, static_cast<int>(options_.timeout.count()));
  monitor.connect(monitor_endpoint);
  try {
    s.connect(endpoint_);
  } catch (const zmq::error_t& e) { throw DeviceError("Remote", "cannot connect to " + endpoint_ + ": " + e.what()); }
  await_handshake(monitor);
  zmq_socket_monitor(s.handle(), nullptr, 0);
  Request hello;
  hello.kind = RequestKind::Hello;
  hello.token = options_.token;
  std::lock_guard lock(mutex_);
  ask(std::move(hello));
}

Client::~Client() = default;

void Client::await_handshake(zmq::socket_t& monitor) {
  zmq::message_t event, address;
  zmq::recv_result_t got;
  try {
    got = monitor.recv(event, zmq::recv_flags::none);
    if (got && event.more()) (void)monitor.recv(address, zmq::recv_flags::none);
  } catch (const zmq::error_t& e) { throw DeviceError("Remote", endpoint_ + ": " + e.what()); }
  if (!got || event.size() < 6)
    throw DeviceError("Remote", endpoint_ + ": no answer from the server within " +
                                    std::to_string(options_.timeout.count()) + " ms (is scorch-server running there?)");
  uint16_t kind;
  int32_t status;
  std::memcpy(&kind, event.data(), 2);
  std::memcpy(&status, static_cast<const char*>(event.data()) + 2, 4);
  if (kind == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) return;
  if (kind == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH && status == 500)
    throw DeviceError("Remote", endpoint_ +
                                    ": the server has as many connections as it takes (scorch-server "
                                    "--max-connections); close other clients or try again later");
  if (kind == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
    throw DeviceError("Remote", endpoint_ +
                                    ": the server refused the token; set SCORCH_REMOTE_TOKEN (or "
                                    "ClientOptions::token) to the server's SCORCH_SERVER_TOKEN");
  throw DeviceError("Remote", endpoint_ +
                                  ": the ZeroMQ handshake failed; is it a scorch-server of this version "
                                  "(which asks for the token in the handshake)?");
}

std::shared_ptr<Client> Client::of(const RemoteDevice& device) {
  std::string endpoint = device.resolved();
  Registry& r = Registry::get();
  std::lock_guard lock(r.mutex);
  auto it = r.clients.find(endpoint);
  if (it != r.clients.end()) {
    std::lock_guard client_lock(it->second->mutex_);
    if (it->second->lost_.empty()) return it->second;
  }
  auto client = std::make_shared<Client>(endpoint, r.options[endpoint]);
  if (r.seed) client->seed(*r.seed);
  r.clients[endpoint] = client;
  return client;
}

void Client::configure(const std::string& endpoint, ClientOptions options) {
  Registry& r = Registry::get();
  std::lock_guard lock(r.mutex);
  r.options[endpoint] = std::move(options);
  r.clients.erase(endpoint);  // the next use connects anew; tensors on the old connection keep it
}

void Client::seed_all(uint64_t seed) {
  Registry& r = Registry::get();
  std::vector<std::shared_ptr<Client>> clients;
  {
    std::lock_guard lock(r.mutex);
    r.seed = seed;
    for (auto& [endpoint, client] : r.clients) clients.push_back(client);
  }
  for (auto& client : clients) client->seed(seed);
}

uint64_t Client::new_id() {
  std::lock_guard lock(mutex_);
  return next_id_++;
}

void Client::lose(const std::string& why) {
  lost_ = why;
  socket_.reset();
  throw DeviceError("Remote", endpoint_ + ": " + why);
}

void Client::check_open() const {
  if (!lost_.empty()) throw DeviceError("Remote", endpoint_ + ": the connection was lost (" + lost_ + ")");
}

void Client::send(Request request) {
  check_open();
  request.drops = drops_;
  std::vector<std::byte> bytes = encode_request(request);  // may throw: the drops stay pending
  zmq::send_result_t sent;
  try {
    sent = socket_->socket.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
  } catch (const zmq::error_t& e) { lose(std::string("send failed: ") + e.what()); }
  if (!sent) lose("the server took no message for " + std::to_string(options_.timeout.count()) + " ms");
  drops_.clear();
}

namespace {
/// The reply kind a request of kind gets when it succeeds.
ReplyKind answer_to(RequestKind kind) {
  switch (kind) {
    case RequestKind::Call: return ReplyKind::Result;
    case RequestKind::Meta: return ReplyKind::Metas;
    case RequestKind::Stats: return ReplyKind::Stats;
    default: return ReplyKind::Ok;
  }
}
}  // namespace

Reply Client::ask(Request request) {
  ReplyKind expected = answer_to(request.kind);
  send(std::move(request));
  zmq::message_t message;
  zmq::recv_result_t got;
  try {
    got = socket_->socket.recv(message, zmq::recv_flags::none);
  } catch (const zmq::error_t& e) { lose(std::string("receive failed: ") + e.what()); }
  if (!got) lose("no reply from the server within " + std::to_string(options_.timeout.count()) + " ms");
  Reply reply;
  try {
    reply = decode_reply({static_cast<const std::byte*>(message.data()), message.size()});
  } catch (const Error& e) { lose(std::string("a malformed reply: ") + e.what()); }
  if (reply.kind == ReplyKind::Error) {
    // A server that no longer knows this session (restarted, or it dropped the connection) will not again.
    if (reply.error_what.find("no session") != std::string::npos) lose(reply.error_what);
    throw_error(reply);
  }
  if (reply.kind != expected) lose("a reply out of step with the requests");
  return reply;
}

void Client::send_op(ir::OpRecord record) {
  Request request;
  request.kind = RequestKind::Op;
  request.record = std::move(record);
  std::lock_guard lock(mutex_);
  send(std::move(request));
}

Reply Client::call(ir::OpRecord record) {
  Request request;
  request.kind = RequestKind::Call;
  request.record = std::move(record);
  std::lock_guard lock(mutex_);
  return ask(std::move(request));
}

TensorMeta Client::meta(uint64_t id) {
  std::lock_guard lock(mutex_);
  auto it = metas_.find(id);
  if (it == metas_.end()) {
    Request request;
    request.kind = RequestKind::Meta;
    request.value = id;
    Reply reply = ask(std::move(request));
    for (auto& meta : reply.metas)
      if (meta) metas_[meta->id] = std::move(*meta);
    it = metas_.find(id);
    if (it == metas_.end()) lose("the server did not describe tensor " + std::to_string(id));
  }
  TensorMeta out = std::move(it->second);
  metas_.erase(it);
  return out;
}

void Client::drop(uint64_t id) noexcept {
  std::lock_guard lock(mutex_);
  if (!lost_.empty()) return;
  metas_.erase(id);
  drops_.push_back(id);
}

void Client::sync() {
  Request request;
  request.kind = RequestKind::Sync;
  std::lock_guard lock(mutex_);
  ask(std::move(request));
}

void Client::seed(uint64_t seed) {
  Request request;
  request.kind = RequestKind::Seed;
  request.value = seed;
  std::lock_guard lock(mutex_);
  if (!lost_.empty()) return;
  // Not waiting: a server that cannot take it now (gone, or not yet connected) loses the connection quietly, and the
  // next use of the endpoint connects anew.
  request.drops = drops_;
  std::vector<std::byte> bytes = encode_request(request);
  try {
    if (socket_->socket.send(zmq::buffer(bytes.data(), bytes.size()), zmq::send_flags::dontwait)) {
      drops_.clear();
      return;
    }
  } catch (const zmq::error_t&) {}
  lost_ = "the server took no seed";
  socket_.reset();
}

ServerStats Client::stats() {
  Request request;
  request.kind = RequestKind::Stats;
  std::lock_guard lock(mutex_);
  return ask(std::move(request)).stats;
}

TensorHandle::TensorHandle(std::shared_ptr<Client> client, uint64_t id, Shape shape, DType dtype)
    : client_(std::move(client)), id_(id), shape_(std::move(shape)), dtype_(dtype) {}

TensorHandle::~TensorHandle() { client_->drop(id_); }

std::optional<Shape> TensorHandle::known_shape() const {
  std::lock_guard lock(mutex_);
  return shape_;
}

void TensorHandle::resolve() const {
  std::lock_guard lock(mutex_);
  if (shape_) return;
  TensorMeta meta = client_->meta(id_);
  dtype_ = meta.dtype;
  shape_ = std::move(meta.shape);
}

const Shape& TensorHandle::shape() const {
  resolve();
  return *shape_;
}

DType TensorHandle::dtype() const {
  resolve();
  return dtype_;
}

template <class Kind> RemoteDevice RemoteTensor<Kind>::device() const {
  return RemoteDevice{handle().client().endpoint()};
}

template <class Kind> const TensorHandle& RemoteTensor<Kind>::handle() const {
  if (!handle_) throw ValueError("Remote", "an empty tensor (no value assigned) has no handle");
  return *handle_;
}

template class RemoteTensor<Float>;
template class RemoteTensor<Int>;
template class RemoteTensor<Bool>;

}  // namespace scorch::remote
