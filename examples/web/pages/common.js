// What the example pages share: the Scorch module with its models, and probability bars.
import createScorchModule from './scorch-models.js';
import { Scorch } from './scorch-web/scorch-web.js';

/** The Scorch module (its .wasm is fetched next to scorch-models.js). */
export async function loadScorch() {
  return Scorch.create(createScorchModule);
}

/** Fetches a JSON file; throws with the URL on failure. */
export async function fetchJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

/** Draws one bar per label into the list element, the most probable marked; returns its index. */
export function showBars(list, labels, probabilities) {
  let top = 0;
  probabilities.forEach((p, i) => { if (p > probabilities[top]) top = i; });
  list.replaceChildren(...labels.map((label, i) => {
    const item = document.createElement('li');
    const percent = (100 * probabilities[i]).toFixed(1);
    item.className = i === top ? 'top' : '';
    item.innerHTML = `<span aria-hidden="true"></span><span class="bar" role="meter" aria-valuemin="0"
      aria-valuemax="100" aria-valuenow="${percent}"><span class="fill" style="width: ${percent}%"></span></span>
      <span aria-hidden="true">${percent} %</span>`;
    item.firstChild.textContent = label;
    item.children[1].setAttribute('aria-label', `${label}: ${percent} percent`);
    return item;
  }));
  return top;
}

/**
 * Loads model `name` (and its labels) from ../models, then calls start(model, labels) and says ready; state (what the
 * test reads) gets ready = true, or the error's message.
 */
export async function startPage(name, statusLine, readyMessage, state, start) {
  try {
    const scorch = await loadScorch();
    const [model, labels] = await Promise.all([scorch.loadModelFromUrl(name, '../models'),
      fetchJson(`../models/${name}.labels.json`)]);
    start(model, labels);
    status(statusLine, readyMessage);
    state.ready = true;
  } catch (error) {
    status(statusLine, `The model could not be loaded: ${error.message}`, true);
    state.error = error.message;
  }
}

/**
 * Runs model on values of shape dims and shows the answer: bars, the heading (answer(label) gives its text) and the
 * status line, the page's one live region; records input and probabilities in state (what the test reads). A failure
 * is shown as an error.
 */
export function showAnswer(model, values, dims, labels, page, state) {
  try {
    const start = performance.now();
    const { data } = model.run(values, dims);
    const elapsed = performance.now() - start, top = showBars(page.bars, labels, data);
    page.heading.textContent = page.answer(labels[top]);
    status(page.statusLine, `${page.answer(labels[top])}: answered in ${elapsed.toFixed(2)} ms.`);
    Object.assign(state, { input: Array.from(values), probabilities: Array.from(data) });
    state.predictions += 1;
  } catch (error) {
    status(page.statusLine, `The model failed: ${error.message}`, true);
  }
}

/** Shows message in the status element (as an error when error is true). */
export function status(element, message, error = false) {
  element.textContent = message;
  element.classList.toggle('error', error);
}
