import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** An answer kept as the pieces it was made in, and their total length. */
export type KeptBytes = { readonly chunks: readonly Uint8Array[]; readonly length: number };

/** Answers up to this size are joined into one piece when kept: sent as one buffer (the cheapest send), and no big block. */
const JOINED_MAX_BYTES = 64 * 1024;

/**
 * Pieces of bytes kept as they are, never joined past 64 KiB: a page or a scrape of a big ledger is megabytes (the
 * overview of 1,000 pipelines 2.3 MB, /metrics 4.7 MB), and joining them copied each build into one more block that
 * size beside its pieces, which glibc's heap kept after it was freed.
 *
 * @example
 * const kept = keptBytes([Buffer.from('<p>'), Buffer.from('</p>')]); // { chunks: [<p></p>], length: 7 }
 */
export function keptBytes(chunks: readonly Uint8Array[]): KeptBytes {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  return { chunks: chunks.length > 1 && length <= JOINED_MAX_BYTES ? [Buffer.concat(chunks, length)] : chunks, length };
}

/**
 * Sends kept pieces as one body of their total length (`content-length`, as a single buffer would be sent): one
 * piece as it is, more as a stream that hands them all on at its first read.
 */
export function sendKept(reply: FastifyReply, kept: KeptBytes): FastifyReply {
  const [only] = kept.chunks;
  if (kept.chunks.length === 1 && only !== undefined) return reply.send(Buffer.from(only.buffer, only.byteOffset, only.length));
  reply.header('content-length', kept.length);
  const body = new Readable({
    read() {
      for (const chunk of kept.chunks) this.push(chunk);
      this.push(null);
    },
  });
  return reply.send(body);
}
