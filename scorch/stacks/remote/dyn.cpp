// Dyn's "remote" stack ("remote:tcp://host:7878"; "remote" is $SCORCH_REMOTE_ENDPOINT's server): every op of the
// table sent to a scorch-server, compiled once here.
#include "scorch/dyn/stack_of.h"
#include "scorch/remote/remote.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_remote() {
  register_stack<Remote>("remote", {[](std::string_view arg) { return remote::RemoteDevice{std::string(arg)}; },
                                    [](const remote::RemoteDevice& d) { return d.endpoint; }});
}
}  // namespace scorch::dyn
