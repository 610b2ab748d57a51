type NodeCrypto = typeof import('node:crypto');

let loaded: NodeCrypto | undefined;

/**
 * `node:crypto`, loaded on its first use. Loading it compiles about twenty of Node's own modules, half the
 * instructions of `node -e 0` again; a query (`status`, `state`, `watermark`) hashes nothing and signs nothing, so
 * only the commands that append, verify or read a log's hash pay for it.
 *
 * @example
 * nodeCrypto().createHash('sha256').update(text).digest('hex')
 */
export function nodeCrypto(): NodeCrypto {
  // process.getBuiltinModule, not createRequire: importing node:module would load it at start (5M instructions).
  loaded ??= process.getBuiltinModule('node:crypto');
  return loaded;
}
