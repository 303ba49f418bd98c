// ONNX Runtime (npm onnxruntime-node, CPU execution provider) on the models scorch-bench materialized
// (SCORCH_BENCH_ONNX_KEEP): node bench/anchors/ort_anchor.js DIR THREADS prints one JSON object, workload name →
// median ms over 21 runs after 3 warm runs, under scorch-bench's names.
const fs = require('fs');
const path = require('path');
const ort = require(process.env.ORT_NODE || '/usr/local/share/scorch/npm/node_modules/onnxruntime-node');

// Folder → [workload name, input dims, input type] (bench/onnx's inputs, as gen_models.py exported them).
const models = {
  resnet18: ['onnx_resnet18_b1_224', [1, 3, 224, 224], 'float32'],
  mobilenet_v2: ['onnx_mobilenet_v2_b1_224', [1, 3, 224, 224], 'float32'],
  encoder: ['onnx_encoder_b8_s128', [8, 128], 'int64'],
  lstm_tagger: ['onnx_lstm_tagger_b16_s64', [16, 64], 'int64'],
};

function input(dims, type) {
  const n = dims.reduce((a, b) => a * b, 1);
  if (type === 'int64') return new ort.Tensor('int64', BigInt64Array.from({length: n}, (_, i) => BigInt(1 + (i * 7) % 40)), dims);
  return new ort.Tensor('float32', Float32Array.from({length: n}, (_, i) => Math.sin(i)), dims);
}

async function main() {
  const [dir, threads] = [process.argv[2], Number(process.argv[3] || 2)];
  const result = {};
  for (const [folder, [name, dims, type]] of Object.entries(models)) {
    const file = path.join(dir, folder, 'model.onnx');
    if (!fs.existsSync(file)) continue;  // scorch-bench ran only some models (--filter)
    const session = await ort.InferenceSession.create(file, {
      intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all'});
    const feeds = {[session.inputNames[0]]: input(dims, type)};
    for (let i = 0; i < 3; i++) await session.run(feeds);
    const times = [];
    for (let i = 0; i < 21; i++) {
      const t = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    result[name] = times[10];
  }
  console.log(JSON.stringify(result));
}
main();
