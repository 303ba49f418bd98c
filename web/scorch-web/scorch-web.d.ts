// Types of scorch-web.js.

/** A failure inside Scorch, with Scorch's message (it starts with the function in brackets). */
export class ScorchError extends Error {}

/** A tensor's values and dims (row-major float32). */
export interface Output {
  data: Float32Array;
  dims: number[];
}

/** The Scorch WebAssembly module: the models it was built with, and loading them. */
export class Scorch {
  /** Instantiates an emscripten module factory (the default export of scorch-models.js). */
  static create(createModule: (options?: object) => Promise<unknown>, options?: object): Promise<Scorch>;
  /** The names of the models compiled into the module. */
  readonly models: string[];
  /** Loads model name from its config (JSON text or object) and record bytes (Scorch's Bin or JSON format). */
  loadModel(name: string, config: string | object, record: ArrayBuffer | Uint8Array): ScorchModel;
  /** Fetches `${base}/${name}.config.json` and `${base}/${name}.bin` and loads them. */
  loadModelFromUrl(name: string, base: string): Promise<ScorchModel>;
}

/** A loaded model. */
export class ScorchModel {
  readonly name: string;
  /** The output for input values of shape dims; throws ScorchError on bad input. */
  run(input: Float32Array | number[], dims: number[]): Output;
  /** Releases the model; later runs throw. */
  free(): void;
}

/** A model run by Web Workers, each with its own module and copy of the model; run() splits the batch. */
export class ScorchPool {
  /** Starts workers (default: navigator.hardwareConcurrency) that load model name from config and record; a relative
   * moduleUrl is resolved against the page. */
  static create(moduleUrl: string | URL, name: string, config: string | object, record: ArrayBuffer | Uint8Array,
    workers?: number): Promise<ScorchPool>;
  /** create() with `${base}/${name}.config.json` and `${base}/${name}.bin` fetched. */
  static createFromUrl(moduleUrl: string | URL, name: string, base: string, workers?: number): Promise<ScorchPool>;
  /** The output for input of shape dims, its first dim split across the workers. */
  run(input: Float32Array | number[], dims: number[]): Promise<Output>;
  /** Stops the workers; runs in flight and later runs reject. */
  terminate(): void;
}
