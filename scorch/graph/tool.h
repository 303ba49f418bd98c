#pragma once
// The compiled path's commands of scorch-onnx: bench (interpreter and compiled medians), profile (each step's time)
// and run (the compiled plan's outputs).

namespace scorch::graph {

/// The commands' usage lines.
extern const char* kToolUsage;
/// Runs scorch-onnx's argv[1] command (bench, profile or run) on the rest of argv; its exit status. Throws Error for
/// bad options or a model that does not load or compile.
int run_tool(int argc, char** argv);

}  // namespace scorch::graph
