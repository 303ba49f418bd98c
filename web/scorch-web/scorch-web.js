// scorch-web: the JavaScript side of Scorch's WebAssembly build (README.md). A module built from registered
// models (scorch/web/web_model.h) is wrapped by Scorch; each loaded model is a ScorchModel that maps a
// Float32Array and its dims to the output's Float32Array and dims. Failures throw ScorchError with the message
// Scorch gave (it starts with the function, e.g. "[scorch_web_run] input of rank 2; the model takes rank 3").

/** A failure inside Scorch, with Scorch's message. */
export class ScorchError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ScorchError';
  }
}

/** The Scorch WebAssembly module: the models it was built with, and loading them. */
export class Scorch {
  /** Instantiates an emscripten module factory (the default export of scorch-models.js); options go to it. */
  static async create(createModule, options = {}) {
    return new Scorch(await createModule(options));
  }

  constructor(module) {
    this.module = module;
  }

  /** The names of the models compiled into the module. */
  get models() {
    const names = this.module.UTF8ToString(this.module._scorch_web_models());
    return names ? names.split(',') : [];
  }

  /** Loads model `name` from its config (JSON text or object) and record bytes (Scorch's Bin or JSON format). */
  loadModel(name, config, record) {
    const m = this.module, text = configText(config), bytes = recordBytes(record), held = [];
    try {
      const nameAt = this.#string(name, held), configAt = this.#string(text, held);
      const recordAt = alloc(m, bytes.length, held, 'loadModel');
      m.HEAPU8.set(bytes, recordAt);
      const handle = m._scorch_web_load(nameAt, configAt, recordAt, bytes.length);
      if (handle === 0) throw lastError(m);
      return new ScorchModel(this, name, handle);
    } finally {
      held.forEach((at) => m._free(at));
    }
  }

  /** Fetches `${base}/${name}.config.json` and `${base}/${name}.bin` (what web-tool export writes) and loads them. */
  async loadModelFromUrl(name, base) {
    const { config, record } = await fetchModel(name, base);
    return this.loadModel(name, config, record);
  }

  #string(text, held) {
    const m = this.module, size = m.lengthBytesUTF8(text) + 1, at = alloc(m, size, held, 'loadModel');
    m.stringToUTF8(text, at, size);
    return at;
  }
}

/** A loaded model. run() may be called any number of times; free() releases its memory. */
export class ScorchModel {
  constructor(scorch, name, handle) {
    this.scorch = scorch;
    this.name = name;
    this.handle = handle;
  }

  /** The output {data: Float32Array, dims: number[]} for input values (Float32Array or numbers) of shape dims. */
  run(input, dims) {
    if (this.handle === 0) throw new ScorchError(`[ScorchModel.run] model ${this.name} was freed`);
    const m = this.scorch.module, values = floatValues(input, dims, 'ScorchModel.run'), held = [];
    try {
      const inputAt = alloc(m, values.byteLength, held, 'ScorchModel.run');
      const dimsAt = alloc(m, dims.length * 4, held, 'ScorchModel.run');
      m.HEAPF32.set(values, inputAt >>> 2);
      m.HEAPU32.set(dims, dimsAt >>> 2);
      const outputAt = m._scorch_web_run(this.handle, inputAt, dimsAt, dims.length) >>> 0;
      if (outputAt === 0) throw lastError(m);
      const rank = m._scorch_web_output_rank(this.handle), dimsOut = m._scorch_web_output_dims(this.handle) >>> 0;
      const shape = Array.from(m.HEAPU32.subarray(dimsOut >>> 2, (dimsOut >>> 2) + rank));
      const size = shape.reduce((a, b) => a * b, 1);
      return { data: m.HEAPF32.slice(outputAt >>> 2, (outputAt >>> 2) + size), dims: shape };
    } finally {
      held.forEach((at) => m._free(at));
    }
  }

  /** Releases the model; later runs throw. */
  free() {
    if (this.handle !== 0) this.scorch.module._scorch_web_free(this.handle);
    this.handle = 0;
  }
}

/**
 * A model run by Web Workers, each with its own single-threaded Scorch module and copy of the model: run() splits the
 * input's first dim (the batch) into one slice per worker and joins the answers in order. It needs no shared memory,
 * so it works on pages with or without cross-origin isolation; a batch of one gains nothing (use ScorchModel).
 */
export class ScorchPool {
  /**
   * Starts `workers` workers that import the module at moduleUrl (scorch-models.js; a relative URL is resolved
   * against the page) and load model `name` from its config and record bytes.
   */
  static async create(moduleUrl, name, config, record, workers = globalThis.navigator?.hardwareConcurrency || 1) {
    const url = new URL(moduleUrl, globalThis.location?.href).href, bytes = recordBytes(record);
    const pool = new ScorchPool(workers);
    try {
      await Promise.all(pool.workers.map((_, i) => pool.#ask(i, { type: 'init', moduleUrl: url, name,
        config: configText(config), record: bytes })));
    } catch (error) {
      pool.terminate();
      throw error;
    }
    return pool;
  }

  /** create() with the config and record fetched as Scorch.loadModelFromUrl fetches them. */
  static async createFromUrl(moduleUrl, name, base, workers) {
    const { config, record } = await fetchModel(name, base);
    return ScorchPool.create(moduleUrl, name, config, record, workers);
  }

  constructor(workers) {
    if (!Number.isInteger(workers) || workers < 1)
      throw new ScorchError(`[ScorchPool.create] ${workers} workers; a whole number of at least 1 is needed`);
    const url = new URL('./scorch-worker.js', import.meta.url);
    this.workers = Array.from({ length: workers }, () => new Worker(url, { type: 'module' }));
    this.pending = new Map();
    this.nextId = 1;
    for (const worker of this.workers) {
      worker.onmessage = ({ data }) => {
        const entry = this.pending.get(data.id);
        this.pending.delete(data.id);
        if (data.error !== undefined) entry?.reject(new ScorchError(data.error));
        else entry?.resolve(data);
      };
      const failed = (event) => this.#failAll(`[ScorchPool] a worker failed: ${event.message ?? 'unreadable message'}`);
      worker.onerror = failed;
      worker.onmessageerror = failed;
    }
  }

  /** The output {data, dims} for input of shape dims, its first dim split across the workers. */
  async run(input, dims) {
    if (!this.workers.length) throw new ScorchError('[ScorchPool.run] the pool was terminated');
    const values = floatValues(input, dims, 'ScorchPool.run');
    if (dims.length === 0) throw new ScorchError('[ScorchPool.run] the input needs a batch dim');
    const rows = dims[0], rowSize = dims.slice(1).reduce((a, b) => a * b, 1);
    const parts = Math.max(1, Math.min(this.workers.length, rows));
    const answers = await Promise.all(Array.from({ length: parts }, (_, i) => {
      const begin = Math.floor((i * rows) / parts), end = Math.floor(((i + 1) * rows) / parts);
      const slice = values.slice(begin * rowSize, end * rowSize);
      return this.#ask(i, { type: 'run', input: slice, dims: [end - begin, ...dims.slice(1)] }, [slice.buffer])
        .then((answer) => {
          if (answer.dims[0] !== end - begin)
            throw new ScorchError(`[ScorchPool.run] the model's output [${answer.dims}] is not batch-first`);
          return answer;
        });
    }));
    const rest = answers[0].dims.slice(1).join(',');
    if (answers.some((a) => a.dims.slice(1).join(',') !== rest))
      throw new ScorchError('[ScorchPool.run] the workers answered with different output dims');
    const data = new Float32Array(answers.reduce((total, a) => total + a.data.length, 0));
    let at = 0;
    for (const a of answers) {
      data.set(a.data, at);
      at += a.data.length;
    }
    return { data, dims: [rows, ...answers[0].dims.slice(1)] };
  }

  /** Stops the workers; runs in flight and later runs reject. */
  terminate() {
    for (const worker of this.workers) worker.terminate();
    this.workers = [];
    this.#failAll('[ScorchPool] the pool was terminated');
  }

  #failAll(message) {
    for (const { reject } of this.pending.values()) reject(new ScorchError(message));
    this.pending.clear();
  }

  #ask(worker, message, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[worker].postMessage({ ...message, id }, transfer);
    });
  }
}

/** The module's last error as a ScorchError. */
function lastError(module) {
  return new ScorchError(module.UTF8ToString(module._scorch_web_error()));
}

/** size bytes of the module's memory (at least 1), recorded in held for freeing; ScorchError when none is left. */
function alloc(module, size, held, op) {
  const at = module._malloc(Math.max(size, 1)) >>> 0;
  if (at === 0) throw new ScorchError(`[${op}] out of memory (${size} bytes)`);
  held.push(at);
  return at;
}

function configText(config) {
  return typeof config === 'string' ? config : JSON.stringify(config);
}

function recordBytes(record) {
  return record instanceof Uint8Array ? record : new Uint8Array(record);
}

/** input as a Float32Array of dims' size; ScorchError naming op when dims are not whole numbers or do not match. */
function floatValues(input, dims, op) {
  if (!Array.isArray(dims) || !dims.every((d) => Number.isInteger(d) && d >= 0 && d <= 0xffffffff))
    throw new ScorchError(`[${op}] dims [${dims}] must be whole numbers from 0 to 2^32 - 1`);
  const values = input instanceof Float32Array ? input : Float32Array.from(input);
  const count = dims.reduce((a, b) => a * b, 1);
  if (values.length !== count)
    throw new ScorchError(`[${op}] ${values.length} values for dims [${dims.join(', ')}] (${count})`);
  return values;
}

/** A model's config text and record bytes from `${base}/${name}.config.json` and `.bin`. */
async function fetchModel(name, base) {
  const [config, record] = await Promise.all([
    fetchOk(`${base}/${name}.config.json`).then((r) => r.text()),
    fetchOk(`${base}/${name}.bin`).then((r) => r.arrayBuffer()),
  ]);
  return { config, record };
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new ScorchError(`[loadModelFromUrl] ${url}: HTTP ${response.status}`);
  return response;
}
