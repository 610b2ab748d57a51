/**
 * The baseline server of the serve figures: fastify answering each captured
 * route with the bytes, status and headers `runledger serve` answered it with,
 * from memory. `node dist/bench/serve-baseline.js <answers.json>` prints
 * `listening <address>` on stdout and serves until SIGTERM.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/** One captured answer: what `runledger serve` sent for `path`. */
export type CapturedAnswer = { path: string; status: number; headers: Record<string, string>; bodyBase64: string };

const file = process.argv[2];
if (file === undefined) throw new Error('usage: serve-baseline.js <answers.json>');
const answers = JSON.parse(readFileSync(file, 'utf8')) as CapturedAnswer[];
const app = Fastify({ logger: false });
for (const answer of answers) {
  const body = Buffer.from(answer.bodyBase64, 'base64');
  app.get(answer.path, async (_request, reply) => reply.code(answer.status).headers(answer.headers).send(body));
}
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${address}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
