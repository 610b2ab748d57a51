import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** An answer kept as the pieces it was made in, and their total length. */
export type KeptBytes = { readonly chunks: readonly Uint8Array[]; readonly length: number };

/**
 * Pieces of bytes kept as they are, never joined: a page or a scrape of a big ledger is megabytes (the overview
 * of 1,000 pipelines 2.3 MB, /metrics 4.7 MB), and joining them copied each build into one more block that size
 * beside its pieces, which glibc's heap kept after it was freed.
 *
 * @example
 * const kept = keptBytes([Buffer.from('<p>'), Buffer.from('</p>')]); // { chunks, length: 7 }
 */
export function keptBytes(chunks: readonly Uint8Array[]): KeptBytes {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  return { chunks, length };
}

/**
 * Sends kept pieces as one body of their total length (`content-length`, as a single buffer would be sent): one
 * piece as it is, more as a stream of them.
 */
export function sendKept(reply: FastifyReply, kept: KeptBytes): FastifyReply {
  const [only] = kept.chunks;
  if (kept.chunks.length === 1 && only !== undefined) return reply.send(Buffer.from(only.buffer, only.byteOffset, only.length));
  reply.header('content-length', kept.length);
  return reply.send(Readable.from(kept.chunks, { objectMode: false }));
}
