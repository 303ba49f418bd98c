#pragma once
// Training: the Learner and its builder, metrics, loggers, checkpointing, early stopping, the
// dashboard (TUI) and plain-text renderer, plots and the summary.
#include "scorch/train/checkpoint.h"
#include "scorch/train/control.h"
#include "scorch/train/learner.h"
#include "scorch/train/logger.h"
#include "scorch/train/metric.h"
#include "scorch/train/metrics_classification.h"
#include "scorch/train/metrics_system.h"
#include "scorch/train/metrics_training.h"
#include "scorch/train/outputs.h"
#include "scorch/train/renderer.h"
#include "scorch/train/tensorboard.h"
#include "scorch/train/report.h"
#include "scorch/train/tui.h"
#include "scorch/stacks/cpu/train.h"
