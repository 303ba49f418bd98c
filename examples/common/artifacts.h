#pragma once
// What the examples that save a trained model check before they load it again.
#include <filesystem>
#include <string>

#include <scorch/core/error.h>

namespace scorch::examples {

/// Throws IoError naming the folder and the command to run unless artifact_dir holds a trained model
/// (its config.json).
inline void require_trained_model(const std::string& program, const std::string& artifact_dir) {
  if (std::filesystem::exists(std::filesystem::path(artifact_dir) / "config.json")) return;
  throw IoError(program, "no trained model in " + artifact_dir + " (config.json is missing): run `" + program +
                             " train --artifact-dir " + artifact_dir + "` first");
}

}  // namespace scorch::examples
