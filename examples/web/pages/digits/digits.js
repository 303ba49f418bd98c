// The digit page: strokes on a 280 × 280 canvas become a 28 × 28 image much as MNIST's were made (the ink scaled into
// 20 × 20; here centered by its bounding box, MNIST by its center of mass), which the "digits" model reads after
// every stroke.
import { showAnswer, startPage, status } from '../common.js';

const pad = document.getElementById('pad'), ink = pad.getContext('2d', { willReadFrequently: true });
const statusLine = document.getElementById('status'), answer = document.getElementById('answer');
const bars = document.getElementById('bars');
const SIDE = 28, BOX = 20;

/** What the test reads: the last input fed to the model and its probabilities. */
window.scorchDigits = { input: null, probabilities: null, predictions: 0 };

function clear() {
  ink.fillStyle = '#000';
  ink.fillRect(0, 0, pad.width, pad.height);
  answer.textContent = 'Draw a digit';
  bars.replaceChildren();
  if (window.scorchDigits.ready) status(statusLine, 'Ready: draw a digit.');
}

/** The drawing as MNIST pixels in [0, 1] (1 = ink), or null when nothing is drawn. */
function mnistPixels() {
  const { data, width, height } = ink.getImageData(0, 0, pad.width, pad.height);
  let top = height, left = width, bottom = -1, right = -1;
  for (let y = 0; y < height; ++y)
    for (let x = 0; x < width; ++x)
      if (data[4 * (y * width + x)] > 0) {
        top = Math.min(top, y); bottom = Math.max(bottom, y);
        left = Math.min(left, x); right = Math.max(right, x);
      }
  if (bottom < 0) return null;
  const w = right - left + 1, h = bottom - top + 1, scale = BOX / Math.max(w, h);
  const small = new OffscreenCanvas(SIDE, SIDE), context = small.getContext('2d', { willReadFrequently: true });
  context.fillStyle = '#000';
  context.fillRect(0, 0, SIDE, SIDE);
  context.imageSmoothingQuality = 'high';
  context.drawImage(pad, left, top, w, h, (SIDE - w * scale) / 2, (SIDE - h * scale) / 2, w * scale, h * scale);
  const pixels = context.getImageData(0, 0, SIDE, SIDE).data, values = new Float32Array(SIDE * SIDE);
  for (let i = 0; i < values.length; ++i) values[i] = pixels[4 * i] / 255;
  return values;
}

function predict(model, labels) {
  const values = mnistPixels();
  if (!values) return;
  const page = { bars, heading: answer, statusLine, answer: (label) => `It is a ${label}` };
  showAnswer(model, values, [1, SIDE, SIDE], labels, page, window.scorchDigits);
}

function listen(model, labels) {
  let drawing = false;
  const at = (event) => {
    const r = pad.getBoundingClientRect();
    return [(event.clientX - r.left) * pad.width / r.width, (event.clientY - r.top) * pad.height / r.height];
  };
  pad.addEventListener('pointerdown', (event) => {
    drawing = true;
    pad.setPointerCapture(event.pointerId);
    ink.beginPath();
    ink.moveTo(...at(event));
  });
  pad.addEventListener('pointermove', (event) => {
    if (!drawing) return;
    ink.lineTo(...at(event));
    ink.stroke();
  });
  const end = () => {
    if (!drawing) return;
    drawing = false;
    predict(model, labels);
  };
  pad.addEventListener('pointerup', end);
  pad.addEventListener('pointercancel', end);
  pad.addEventListener('keydown', (event) => { if (event.key === 'Escape' || event.key === 'Delete') clear(); });
  document.getElementById('clear').addEventListener('click', clear);
}

async function main() {
  clear();
  Object.assign(ink, { strokeStyle: '#fff', lineWidth: 18, lineCap: 'round', lineJoin: 'round' });
  await startPage('digits', statusLine, 'Ready: draw a digit.', window.scorchDigits, listen);
}

main();
