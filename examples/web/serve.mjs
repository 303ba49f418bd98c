// A static server for the web pages (README.md): web-dist/ at /, ONNX Runtime Web's dist/ at /ort/ when given. It
// sends the cross-origin isolation headers (COOP/COEP) so pages may use SharedArrayBuffer, and the right types.
//   node examples/web/serve.mjs build-wasm/web-dist [--ort DIR] [--port 8000]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png', '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream', '.svg': 'image/svg+xml',
};

/** The file under root that url names, or null when it leaves root. */
function fileFor(root, path) {
  const file = normalize(join(root, decodeURIComponent(path)));
  return file === root || file.startsWith(root + sep) ? file : null;
}

/** Starts serving dist (and ort at /ort/) on port (0: any free port); resolves to the server and its address. */
export async function serve(dist, { ort = null, port = 0, host = '127.0.0.1' } = {}) {
  const roots = [['/ort/', ort && resolve(ort)], ['/', resolve(dist)]].filter(([, root]) => root);
  const server = createServer(async (request, response) => {
    const path = new URL(request.url, 'http://localhost').pathname;
    const [prefix, root] = roots.find(([p]) => path.startsWith(p));
    try {
      let file = fileFor(root, path.slice(prefix.length));  // a malformed escape throws: answered 404
      if (file && (await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = file && (await readFile(file));
      if (!body) throw new Error('outside the root');
      response.writeHead(200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cache-Control': 'no-store',
      });
      response.end(body);
    } catch {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end(`not found: ${path}\n`);
    }
  });
  await new Promise((done) => server.listen(port, host, done));
  return { server, url: `http://${host}:${server.address().port}/` };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2), option = (name) => {
    const i = args.indexOf(name);
    return i < 0 ? null : args.splice(i, 2)[1];
  };
  const ort = option('--ort'), port = Number(option('--port') ?? 8000);
  if (args.length !== 1) {
    console.error('usage: node serve.mjs WEB_DIST [--ort DIR] [--port N]');
    process.exit(2);
  }
  const { url } = await serve(args[0], { ort, port });
  console.log(`serving ${args[0]} at ${url}`);
}
