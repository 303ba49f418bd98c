// The scorch-web package in Node on the pages' module (label wasm): the models it was built with, loading the
// exported digit model, running it, and each misuse as a ScorchError that names the problem.
//   node test_scorch_web.mjs WEB_DIST
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.argv[2];
const url = (file) => pathToFileURL(join(dist, file)).href;
const { default: createScorchModule } = await import(url('scorch-models.js'));
const { Scorch, ScorchError } = await import(url('scorch-web/scorch-web.js'));
const scorch = await Scorch.create(createScorchModule, { wasmBinary: readFileSync(join(dist, 'scorch-models.wasm')) });
assert.deepEqual(scorch.models, ['digits', 'icons']);

const config = readFileSync(join(dist, 'models/digits.config.json'), 'utf8');
const record = readFileSync(join(dist, 'models/digits.bin'));
const model = scorch.loadModel('digits', JSON.parse(config), record);
const input = new Float32Array(2 * 28 * 28).map((_, i) => (i % 29) / 29);
const { data, dims } = model.run(input, [2, 28, 28]);
assert.deepEqual(dims, [2, 10]);
for (const row of [data.subarray(0, 10), data.subarray(10)])
  assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, `probabilities sum to 1: ${row}`);
assert.deepEqual(model.run(Array.from(input.subarray(0, 784)), [1, 28, 28]).data, data.slice(0, 10));

const fails = (run, pattern) => assert.throws(run, (e) => e instanceof ScorchError && pattern.test(e.message));
fails(() => model.run(input, [2, 784]), /\[scorch_web_run\] input of rank 2; the model takes rank 3/);
fails(() => model.run(input, [3, 28, 28]), /\[ScorchModel.run\] 1568 values for dims \[3, 28, 28\]/);
fails(() => model.run(new Float32Array(2 * 2 * 2), [2, 2, 2]), /^\[conv/);
fails(() => scorch.loadModel('nope', config, record), /no model named 'nope' \(registered: digits, icons\)/);
fails(() => scorch.loadModel('digits', config, record.subarray(0, 100)), /record bytes/);
fails(() => scorch.loadModel('digits', '{"num_classes": 10}', record), /hidden_size/);
model.free();
fails(() => model.run(input, [2, 28, 28]), /was freed/);
console.log('scorch-web: all checks passed');
