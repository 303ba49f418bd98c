// The icon page: a dropped or chosen image is fitted into 32 × 32 (aspect kept, centered) and read as coverage in
// [0, 1]: its alpha where it has transparency (as the icons the model learned from), else its darkness.
import { showAnswer, startPage, status } from '../common.js';

const SIDE = 32;
const preview = document.getElementById('preview'), drop = document.getElementById('drop');
const statusLine = document.getElementById('status'), answer = document.getElementById('answer');
const bars = document.getElementById('bars');

/** What the test reads: the last input fed to the model and its probabilities. */
window.scorchIcons = { input: null, probabilities: null, predictions: 0 };

/** The image's coverage [32 × 32] in [0, 1], drawn into the preview as well. */
function coverage(image) {
  const canvas = new OffscreenCanvas(SIDE, SIDE), context = canvas.getContext('2d', { willReadFrequently: true });
  const scale = SIDE / Math.max(image.width, image.height), w = image.width * scale, h = image.height * scale;
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, (SIDE - w) / 2, (SIDE - h) / 2, w, h);
  const { data } = context.getImageData(0, 0, SIDE, SIDE);
  const values = new Float32Array(SIDE * SIDE);
  let transparent = false;
  for (let i = 0; i < values.length; ++i) transparent ||= data[4 * i + 3] < 255;
  for (let i = 0; i < values.length; ++i) {
    const [r, g, b, a] = data.subarray(4 * i, 4 * i + 4);
    values[i] = transparent ? a / 255 : 1 - (0.299 * r + 0.587 * g + 0.114 * b) / 255;
  }
  const shown = preview.getContext('2d'), gray = shown.createImageData(SIDE, SIDE);
  values.forEach((v, i) => gray.data.set([255 * (1 - v), 255 * (1 - v), 255 * (1 - v), 255], 4 * i));
  shown.putImageData(gray, 0, 0);
  return values;
}

async function classify(model, labels, file) {
  if (!file.type.startsWith('image/')) return status(statusLine, `${file.name} is not an image.`, true);
  let image;
  try {
    image = await createImageBitmap(file);
  } catch {
    return status(statusLine, `${file.name} could not be decoded as an image.`, true);
  }
  const page = { bars, heading: answer, statusLine, answer: (label) => `${file.name} looks like ${label}` };
  showAnswer(model, coverage(image), [1, SIDE, SIDE], labels, page, window.scorchIcons);
}

function listen(model, labels) {
  const input = document.getElementById('file');
  input.addEventListener('change', () => input.files[0] && classify(model, labels, input.files[0]));
  drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const file = event.dataTransfer.files[0];
    if (file) classify(model, labels, file);
  });
}

startPage('icons', statusLine, 'Ready: drop an image.', window.scorchIcons, listen);
