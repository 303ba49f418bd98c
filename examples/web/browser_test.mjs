// The pages in headless Chromium (ctest label browser; README.md): draws the ten digits on the digit page's canvas
// with the mouse, gives icons to the icon page's file input, and checks each prediction against web-tool's native
// answer for the same pixels (same class, probabilities within 2e-4); saves screenshots; runs the benchmark page
// (Scorch against ONNX Runtime Web) and prints its figures and both download sizes as JSON lines; probes WebGPU.
//   node browser_test.mjs --dist DIR --ort DIR --tool WEB_TOOL --out DIR --icons FILE,FILE,... [--chromium PATH]
//     [--npm PREFIX]   (where playwright-core is installed; scripts/install-deps.sh's prefix by default)
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { serve } from './serve.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, value, i, all) =>
  (i % 2 === 0 ? [...pairs, [value.replace(/^--/, ''), all[i + 1]]] : pairs), []));
for (const name of ['dist', 'ort', 'tool', 'out', 'icons'])
  if (!args[name]) throw new Error(`browser_test: --${name} is required`);
const require = createRequire(join(args.npm ?? '/usr/local/share/scorch/npm', 'node_modules/'));
const { chromium } = require('playwright-core');
const TOLERANCE = 2e-4;
mkdirSync(args.out, { recursive: true });

// One stroke per digit, in the unit square of the canvas.
const STROKES = [
  [[0.5, 0.15], [0.3, 0.3], [0.27, 0.55], [0.35, 0.8], [0.5, 0.86], [0.67, 0.78], [0.73, 0.5], [0.68, 0.25],
    [0.5, 0.15]],
  [[0.42, 0.25], [0.53, 0.14], [0.53, 0.86]],
  [[0.27, 0.3], [0.37, 0.17], [0.56, 0.15], [0.7, 0.26], [0.67, 0.44], [0.27, 0.85], [0.76, 0.85]],
  [[0.28, 0.2], [0.6, 0.15], [0.7, 0.3], [0.5, 0.48], [0.72, 0.62], [0.62, 0.82], [0.28, 0.82]],
  [[0.62, 0.86], [0.62, 0.14], [0.25, 0.62], [0.77, 0.62]],
  [[0.7, 0.15], [0.33, 0.15], [0.3, 0.46], [0.6, 0.42], [0.72, 0.6], [0.6, 0.83], [0.28, 0.8]],
  [[0.66, 0.15], [0.38, 0.42], [0.3, 0.7], [0.45, 0.86], [0.66, 0.76], [0.63, 0.55], [0.42, 0.52], [0.32, 0.65]],
  [[0.25, 0.15], [0.76, 0.15], [0.45, 0.86]],
  [[0.62, 0.2], [0.47, 0.13], [0.32, 0.25], [0.45, 0.45], [0.68, 0.62], [0.56, 0.85], [0.32, 0.76], [0.4, 0.55],
    [0.63, 0.35], [0.6, 0.2]],
  [[0.68, 0.35], [0.5, 0.15], [0.32, 0.3], [0.45, 0.48], [0.68, 0.35], [0.66, 0.86]],
];

/** web-tool's probabilities and classes for the inputs of model (rows of values). */
function native(model, rows, side) {
  const file = join(args.out, `${model}-inputs.json`);
  writeFileSync(file, JSON.stringify({ model, dims: [rows.length, side, side], values: rows.flat() }));
  return JSON.parse(execFileSync(args.tool, ['predict', join(args.dist, 'models'), file], { encoding: 'utf8' }));
}

/** Throws unless the page's answers match the native ones; returns how many match expected classes. */
function compare(model, page, expected) {
  const reference = native(model, page.map((p) => p.input), Math.sqrt(page[0].input.length));
  let agree = 0;
  page.forEach((p, i) => {
    const pageClass = p.probabilities.indexOf(Math.max(...p.probabilities));
    if (pageClass !== reference.classes[i])
      throw new Error(`${model} ${i}: the page answered ${pageClass}, the native build ${reference.classes[i]}`);
    const gap = Math.max(...p.probabilities.map((v, j) => Math.abs(v - reference.probabilities[i][j])));
    if (gap > TOLERANCE) throw new Error(`${model} ${i}: probabilities differ from the native build's by ${gap}`);
    if (expected && pageClass === expected[i]) agree += 1;
  });
  return agree;
}

async function waitFor(page, expression) {
  await page.waitForFunction(`(${expression}) || window.scorchDigits?.error || window.scorchIcons?.error`,
    null, { timeout: 60000 });
  const error = await page.evaluate('window.scorchDigits?.error || window.scorchIcons?.error');
  if (error) throw new Error(`the page failed: ${error}`);
}

async function digits(page, url) {
  await page.goto(`${url}digits/`);
  await waitFor(page, 'window.scorchDigits.ready');
  const box = await page.locator('#pad').boundingBox(), answers = [];
  for (const [digit, stroke] of STROKES.entries()) {
    await page.click('#clear');
    const before = await page.evaluate('window.scorchDigits.predictions');
    const at = ([x, y]) => [box.x + x * box.width, box.y + y * box.height];
    await page.mouse.move(...at(stroke[0]));
    await page.mouse.down();
    for (const point of stroke.slice(1)) await page.mouse.move(...at(point), { steps: 8 });
    await page.mouse.up();
    await waitFor(page, `window.scorchDigits.predictions > ${before}`);
    answers.push(await page.evaluate('({input: scorchDigits.input, probabilities: scorchDigits.probabilities})'));
    await page.screenshot({ path: join(args.out, `digits-${digit}.png`) });
  }
  const recognized = compare('digits', answers, [...STROKES.keys()]);
  console.log(JSON.stringify({ test: 'browser_digits', drawn: STROKES.length, matches_native: STROKES.length,
    recognized }));
}

async function icons(page, url) {
  await page.goto(`${url}icons/`);
  await waitFor(page, 'window.scorchIcons.ready');
  const files = args.icons.split(','), answers = [];
  for (const [i, file] of files.entries()) {
    const before = await page.evaluate('window.scorchIcons.predictions');
    await page.setInputFiles('#file', file);
    await waitFor(page, `window.scorchIcons.predictions > ${before}`);
    answers.push(await page.evaluate('({input: scorchIcons.input, probabilities: scorchIcons.probabilities})'));
    await page.screenshot({ path: join(args.out, `icons-${i}.png`) });
  }
  compare('icons', answers, null);
  console.log(JSON.stringify({ test: 'browser_icons', images: files.length, matches_native: files.length }));
}

async function bench(page, url, threads) {
  await page.goto(`${url}bench/?threads=${threads}`);
  await page.waitForFunction('window.benchResults || window.benchError', null, { timeout: 120000 });
  const error = await page.evaluate('window.benchError');
  if (error) throw new Error(`the benchmark page failed: ${error}`);
  const results = await page.evaluate('window.benchResults');
  for (const r of results) console.log(JSON.stringify({ bench: 'web_digits', ...r }));
  for (const batch of new Set(results.map((r) => r.batch))) {
    const row = (runtime) => results.find((r) => r.runtime === runtime && r.batch === batch);
    const [s, o] = [row('scorch-wasm'), row('onnxruntime-web')];
    if (o.max_difference > 1e-4) throw new Error(`batch ${batch}: the runtimes' outputs differ by ${o.max_difference}`);
    console.log(JSON.stringify({ bench: 'web_digits_ratio', threads, batch,
      ort_ms_over_scorch_ms: o.median_ms / s.median_ms }));
  }
  await page.screenshot({ path: join(args.out, `bench-${threads}.png`) });
}

/** The download each runtime needs for the digit model: module, loader and API (JSON line). */
function downloads() {
  const size = (dir, files) => files.reduce((total, f) => total + statSync(join(dir, f)).size, 0);
  const scorchBytes = size(args.dist, ['scorch-models.wasm', 'scorch-models.js', 'scorch-web/scorch-web.js']);
  const ortBytes = size(args.ort, ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.mjs', 'ort.wasm.min.mjs']);
  console.log(JSON.stringify({ bench: 'web_download', scorch_bytes: scorchBytes, ort_bytes: ortBytes,
    ort_over_scorch: ortBytes / scorchBytes }));
}

/** What WebGPU Chromium offers headless with flags (printed; never fails the test). */
async function probeWebGpu(url, flags) {
  const browser = await chromium.launch({ executablePath: args.chromium, args: ['--no-sandbox', ...flags] });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    const found = await page.evaluate(async () => {
      if (!navigator.gpu) return { gpu: false };
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return { gpu: true, adapter: null };
      const info = adapter.info ?? {};
      return { gpu: true, adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device,
        description: info.description, fallback: adapter.isFallbackAdapter ?? null } };
    });
    console.log(JSON.stringify({ probe: 'webgpu', flags, ...found }));
  } catch (error) {
    console.log(JSON.stringify({ probe: 'webgpu', flags, error: error.message }));
  } finally {
    await browser.close();
  }
}

args.chromium ??= '/usr/bin/chromium';
const { server, url } = await serve(args.dist, { ort: args.ort });
const browser = await chromium.launch({ executablePath: args.chromium, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await digits(page, url);
  await icons(page, url);
  await bench(page, url, 1);
  await bench(page, url, 2);
  downloads();
  if (problems.length) throw new Error(`page errors: ${problems.join('; ')}`);
  const isolated = await page.evaluate('crossOriginIsolated');
  console.log(JSON.stringify({ test: 'browser', cross_origin_isolated: isolated, screenshots: args.out }));
} finally {
  await browser.close();
}
await probeWebGpu(url, []);
await probeWebGpu(url, ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader',
  '--use-webgpu-adapter=swiftshader']);
server.close();
