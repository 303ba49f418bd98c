#pragma once
// Remote's device (a server's endpoint) and primitives (a tensor id on that server). A primitive's shape and dtype
// are the server's: the first question about them waits for the server's answer, which is then kept.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "scorch/backend/kind.h"
#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::remote {

class Client;

/// A scorch-server, by its ZeroMQ endpoint ("tcp://127.0.0.1:7878"). The default device (empty endpoint) is
/// $SCORCH_REMOTE_ENDPOINT, else tcp://127.0.0.1:7878.
struct RemoteDevice {
  std::string endpoint;

  /// The endpoint, the default one resolved.
  std::string resolved() const;
  /// "Remote(tcp://127.0.0.1:7878)".
  std::string to_string() const { return "Remote(" + resolved() + ")"; }
  friend bool operator==(const RemoteDevice& a, const RemoteDevice& b) { return a.resolved() == b.resolved(); }
};

/// A tensor the server holds under id for client: dropping the last handle tells the server to free it.
class TensorHandle {
 public:
  TensorHandle(std::shared_ptr<Client> client, uint64_t id) : client_(std::move(client)), id_(id) {}
  TensorHandle(std::shared_ptr<Client> client, uint64_t id, Shape shape, DType dtype);
  TensorHandle(const TensorHandle&) = delete;
  TensorHandle& operator=(const TensorHandle&) = delete;
  ~TensorHandle();

  uint64_t id() const { return id_; }
  Client& client() const { return *client_; }
  const std::shared_ptr<Client>& shared_client() const { return client_; }
  /// The shape, asked of the server once (a DeviceError when it cannot answer, or the error of the op that made it).
  const Shape& shape() const;
  DType dtype() const;
  /// The shape when the client knows it already (no question to the server); the dtype is then known too.
  std::optional<Shape> known_shape() const;

 private:
  void resolve() const;
  std::shared_ptr<Client> client_;
  uint64_t id_;
  mutable std::mutex mutex_;  // guards shape_ and dtype_: copies of a tensor may be read from several threads
  mutable std::optional<Shape> shape_;
  mutable DType dtype_ = DType::F32;
};

/// Remote's primitive of kind Kind: a shared handle (copies name the same server tensor).
template <class Kind> class RemoteTensor {
 public:
  RemoteTensor() = default;
  explicit RemoteTensor(std::shared_ptr<TensorHandle> handle) : handle_(std::move(handle)) {}

  Shape shape() const { return handle().shape(); }
  DType dtype() const { return handle().dtype(); }
  RemoteDevice device() const;
  /// The server's id of the tensor.
  uint64_t id() const { return handle().id(); }
  /// The handle; a ValueError for an empty tensor.
  const TensorHandle& handle() const;

 private:
  std::shared_ptr<TensorHandle> handle_;
};

}  // namespace scorch::remote
