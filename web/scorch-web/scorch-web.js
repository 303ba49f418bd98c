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
    const m = this.module;
    const text = typeof config === 'string' ? config : JSON.stringify(config);
    const bytes = record instanceof Uint8Array ? record : new Uint8Array(record);
    const nameAt = this.#string(name), configAt = this.#string(text), recordAt = m._malloc(Math.max(bytes.length, 1));
    try {
      m.HEAPU8.set(bytes, recordAt);
      const handle = m._scorch_web_load(nameAt, configAt, recordAt, bytes.length);
      if (handle === 0) throw this.#error();
      return new ScorchModel(this, name, handle);
    } finally {
      m._free(nameAt);
      m._free(configAt);
      m._free(recordAt);
    }
  }

  /** Fetches `${base}/${name}.config.json` and `${base}/${name}.bin` (what web-tool export writes) and loads them. */
  async loadModelFromUrl(name, base) {
    const [config, record] = await Promise.all([
      fetchOk(`${base}/${name}.config.json`).then((r) => r.text()),
      fetchOk(`${base}/${name}.bin`).then((r) => r.arrayBuffer()),
    ]);
    return this.loadModel(name, config, record);
  }

  #string(text) {
    const m = this.module, size = m.lengthBytesUTF8(text) + 1, at = m._malloc(size);
    m.stringToUTF8(text, at, size);
    return at;
  }

  #error() {
    return new ScorchError(this.module.UTF8ToString(this.module._scorch_web_error()));
  }

  /** @internal */ error() {
    return this.#error();
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
    const m = this.scorch.module;
    const values = input instanceof Float32Array ? input : Float32Array.from(input);
    const count = dims.reduce((a, b) => a * b, 1);
    if (values.length !== count)
      throw new ScorchError(`[ScorchModel.run] ${values.length} values for dims [${dims.join(', ')}] (${count})`);
    const inputAt = m._malloc(Math.max(values.byteLength, 4)), dimsAt = m._malloc(Math.max(dims.length * 4, 4));
    try {
      m.HEAPF32.set(values, inputAt / 4);
      m.HEAPU32.set(dims, dimsAt / 4);
      const outputAt = m._scorch_web_run(this.handle, inputAt, dimsAt, dims.length);
      if (outputAt === 0) throw this.scorch.error();
      const rank = m._scorch_web_output_rank(this.handle), dimsOut = m._scorch_web_output_dims(this.handle);
      const shape = Array.from(m.HEAPU32.subarray(dimsOut / 4, dimsOut / 4 + rank));
      const size = shape.reduce((a, b) => a * b, 1);
      return { data: m.HEAPF32.slice(outputAt / 4, outputAt / 4 + size), dims: shape };
    } finally {
      m._free(inputAt);
      m._free(dimsAt);
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
   * Starts `workers` workers that import the module at moduleUrl (scorch-models.js) and load model `name` from its
   * config and record bytes.
   */
  static async create(moduleUrl, name, config, record, workers = navigator.hardwareConcurrency || 1) {
    const text = typeof config === 'string' ? config : JSON.stringify(config);
    const bytes = new Uint8Array(record);
    const pool = new ScorchPool(workers);
    try {
      await Promise.all(pool.workers.map((_, i) => pool.#ask(i, { type: 'init', moduleUrl, name, config: text,
        record: bytes })));
    } catch (error) {
      pool.terminate();
      throw error;
    }
    return pool;
  }

  constructor(workers) {
    if (!(workers >= 1)) throw new ScorchError(`[ScorchPool.create] ${workers} workers; at least 1 is needed`);
    const url = new URL('./scorch-worker.js', import.meta.url);
    this.workers = Array.from({ length: workers }, () => new Worker(url, { type: 'module' }));
    this.pending = new Map();
    this.nextId = 1;
    for (const worker of this.workers)
      worker.onmessage = ({ data }) => {
        const { resolve, reject } = this.pending.get(data.id);
        this.pending.delete(data.id);
        if (data.error) reject(new ScorchError(data.error));
        else resolve(data);
      };
  }

  /** The output {data, dims} for input of shape dims, its first dim split across the workers. */
  async run(input, dims) {
    if (!this.workers.length) throw new ScorchError('[ScorchPool.run] the pool was terminated');
    const values = input instanceof Float32Array ? input : Float32Array.from(input);
    const rows = dims[0], rowSize = dims.slice(1).reduce((a, b) => a * b, 1);
    if (dims.length === 0 || values.length !== rows * rowSize)
      throw new ScorchError(`[ScorchPool.run] ${values.length} values for dims [${dims.join(', ')}]`);
    const parts = Math.max(1, Math.min(this.workers.length, rows)), step = Math.ceil(rows / parts);
    const answers = await Promise.all(Array.from({ length: parts }, (_, i) => {
      const begin = Math.min(rows, i * step), end = Math.min(rows, begin + step);
      const slice = values.slice(begin * rowSize, end * rowSize);
      return this.#ask(i, { type: 'run', input: slice, dims: [end - begin, ...dims.slice(1)] }, [slice.buffer]);
    }));
    const data = new Float32Array(answers.reduce((total, a) => total + a.data.length, 0));
    let at = 0;
    for (const a of answers) {
      data.set(a.data, at);
      at += a.data.length;
    }
    return { data, dims: [rows, ...answers[0].dims.slice(1)] };
  }

  /** Stops the workers; later runs throw. */
  terminate() {
    for (const worker of this.workers) worker.terminate();
    this.workers = [];
  }

  #ask(worker, message, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[worker].postMessage({ ...message, id }, transfer);
    });
  }
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new ScorchError(`[loadModelFromUrl] ${url}: HTTP ${response.status}`);
  return response;
}
