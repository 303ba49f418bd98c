// One worker of a ScorchPool (scorch-web.js): its own Scorch module and copy of the model; answers run messages.
import { Scorch } from './scorch-web.js';

let model = null;

self.onmessage = async ({ data: message }) => {
  try {
    if (message.type === 'init') {
      const { default: createModule } = await import(message.moduleUrl);
      const scorch = await Scorch.create(createModule);
      model = scorch.loadModel(message.name, message.config, message.record);
      self.postMessage({ id: message.id });
    } else {
      const { data, dims } = model.run(message.input, message.dims);
      self.postMessage({ id: message.id, data, dims }, [data.buffer]);
    }
  } catch (error) {
    self.postMessage({ id: message.id, error: String(error?.message ?? error) });
  }
};
