// The digit model timed in Scorch and in ONNX Runtime Web (wasm backend) on the same inputs, batch 1 and 64, with
// ?threads=N threads each (default 1): ONNX Runtime's own threads; Scorch's batch of 64 split across N workers
// (ScorchPool) when N > 1, its batch of 1 on the page's thread. 10 warm-up runs, then runs until 1 s or 500 runs have
// passed; the median is reported. ONNX Runtime Web is served from ../ort/ (examples/web/serve.mjs maps it); both
// outputs are compared.
import { loadScorch, status } from '../common.js';
import { ScorchPool } from '../scorch-web/scorch-web.js';

const statusLine = document.getElementById('status'), table = document.getElementById('results');
const BATCHES = [1, 64], WARMUP = 10, MAX_RUNS = 500, MAX_MS = 1000;
const THREADS = threadsAsked();

/** ?threads=N: a whole number from 1 to 64, else 1. */
function threadsAsked() {
  const n = Number(new URLSearchParams(location.search).get('threads') ?? 1);
  return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 1;
}

/** Deterministic pseudo-random ink in [0, 1] for n images. */
function images(n) {
  const values = new Float32Array(n * 28 * 28);
  let state = 12345;
  for (let i = 0; i < values.length; ++i) {
    state = (1103515245 * state + 12345) % 2147483648;
    values[i] = state / 2147483648;
  }
  return values;
}

/** The median time of run() in ms, and the last result. */
async function time(run) {
  let result;
  for (let i = 0; i < WARMUP; ++i) result = await run();
  const times = [], begin = performance.now();
  while (times.length < MAX_RUNS && performance.now() - begin < MAX_MS) {
    const start = performance.now();
    result = await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], runs: times.length, result };
}

function row(entry) {
  const tr = document.createElement('tr');
  const values = [entry.runtime, entry.threads, entry.batch, entry.median_ms.toFixed(3), entry.load_ms.toFixed(1)];
  for (const value of values) {
    const cell = document.createElement('td');
    cell.textContent = value;
    tr.append(cell);
  }
  table.append(tr);
}

async function bench() {
  table.replaceChildren();
  const start = performance.now();
  const scorch = await loadScorch();
  const model = await scorch.loadModelFromUrl('digits', '../models');
  let pool = null;
  try {
    if (THREADS > 1) pool = await ScorchPool.createFromUrl('../scorch-models.js', 'digits', '../models', THREADS);
    return await compare(model, pool, performance.now() - start);  // Scorch's load: module, model and workers
  } finally {
    model.free();
    pool?.terminate();
  }
}

/** Times both runtimes on each batch size; rows are added to the table as they are measured. */
async function compare(model, pool, scorchLoad) {
  const results = [];
  const start = performance.now();
  const ort = await import('../ort/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = THREADS;
  ort.env.wasm.wasmPaths = new URL('../ort/', import.meta.url).href;
  const session = await ort.InferenceSession.create('../models/digits.onnx', { executionProviders: ['wasm'] });
  const ortLoad = performance.now() - start;

  for (const batch of BATCHES) {
    const input = images(batch), dims = [batch, 28, 28];
    const scorchRun = async () => (pool && batch > 1 ? await pool.run(input, dims) : model.run(input, dims)).data;
    const s = await time(scorchRun);
    const feeds = { ink: new ort.Tensor('float32', input, dims) };
    const o = await time(async () => (await session.run(feeds)).probabilities.data);
    let difference = 0;
    s.result.forEach((v, i) => { difference = Math.max(difference, Math.abs(v - o.result[i])); });
    const threads = THREADS;
    results.push({ runtime: 'scorch-wasm', threads, batch, median_ms: s.median, runs: s.runs, load_ms: scorchLoad });
    results.push({ runtime: 'onnxruntime-web', threads, batch, median_ms: o.median, runs: o.runs, load_ms: ortLoad,
      max_difference: difference });
    results.slice(-2).forEach(row);
  }
  return results;
}

async function main() {
  const button = document.getElementById('run');
  const go = async () => {
    button.disabled = true;
    status(statusLine, 'Running…');
    try {
      window.benchResults = await bench();
      status(statusLine, 'Done.');
    } catch (error) {
      status(statusLine, `The benchmark failed: ${error.message}`, true);
      window.benchError = error.message;
    }
    button.disabled = false;
  };
  button.addEventListener('click', go);
  await go();
}

main();
