import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';

/** An answer as a client saw it. */
export type Answer = { status: number; headers: Record<string, string>; body: string };

/** A POST's bytes and headers, sent the same way by every client below. */
export type Post = { url: string; headers: Record<string, string>; body: Buffer | string };

/** A client that sends a POST over a real socket and reads the whole answer. */
export type Client = { name: string; post: (request: Post) => Promise<Answer> };

/** Node's fetch (undici). */
export const nodeFetch: Client = {
  name: 'Node fetch',
  post: async ({ url, headers, body }) => {
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  },
};

/** Node's http module, one request on its own connection. */
export const nodeHttp: Client = {
  name: 'Node http',
  post: ({ url, headers, body }) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, timeout: 30_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: text }));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 30 s`)));
      req.on('error', reject);
      req.end(body);
    }),
};

// Reads the request from stdin as JSON (the body in base64) and prints the answer as JSON; an HTTP error status is
// an answer, not a failure.
const PYTHON_CLIENT = `
import base64, json, sys, urllib.error, urllib.request
spec = json.load(sys.stdin)
req = urllib.request.Request(spec["url"], data=base64.b64decode(spec["body"]), headers=spec["headers"], method="POST")
try:
    res = urllib.request.urlopen(req, timeout=30)
except urllib.error.HTTPError as e:
    res = e
print(json.dumps({"status": res.status, "headers": {k.lower(): v for k, v in res.headers.items()}, "body": res.read().decode("utf-8")}))
`;

/** Python's urllib (the client the OpenLineage Python client's HTTP transport is built like). */
export const pythonUrllib: Client = {
  name: 'Python urllib',
  post: async ({ url, headers, body }) => {
    const out = await runChild('python3', ['-c', PYTHON_CLIENT], JSON.stringify({ url, headers, body: Buffer.from(body).toString('base64') }));
    return JSON.parse(out) as Answer;
  },
};

/** curl, the body from stdin. */
export const curl: Client = {
  name: 'curl',
  post: async ({ url, headers, body }) => {
    const args = ['-sS', '-m', '30', '-o', '-', '-w', '\n%{http_code}', '-X', 'POST', '--data-binary', '@-', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
    const out = await runChild('curl', args, body);
    const cut = out.lastIndexOf('\n');
    return { status: Number(out.slice(cut + 1)), headers: {}, body: out.slice(0, cut) };
  },
};

/** True when the program can be run here (python3 and curl are not on every machine). */
export function installed(program: string): boolean {
  return spawnSync(program, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A GET with Node's fetch: status and the time it took, for probes beside a slow request. */
export async function timedGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
}

// Asynchronous on purpose: the server under test may run in this process, and a synchronous child would block it.
function runChild(program: string, args: string[], input: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${program} exited ${code}: ${stderr.trim()}`))));
    child.stdin.end(input);
  });
}
