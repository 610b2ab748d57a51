/**
 * The environment of every timed or measured CLI process: the bench's own, with the fixed "now", and
 * without NODE_EXTRA_CA_CERTS. A machine that sets it (this one points it at the system's bundle of 146
 * certificates) makes every Node.js process parse the bundle at start: `node -e 0` runs 508M instructions
 * with it and 95M without (callgrind). That cost sits on both sides of every start-up ratio and flatters
 * them all; a user's machine seldom sets it, so the bench leaves it out.
 */
export function timedEnv(nowText: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, RUNLEDGER_NOW: nowText };
  delete env['NODE_EXTRA_CA_CERTS'];
  return env;
}

/** Said in RESULTS.md when the bench's own environment sets NODE_EXTRA_CA_CERTS. */
export const EXTRA_CA_CERTS_NOTE =
  'NODE_EXTRA_CA_CERTS is set in this machine\'s environment and was removed from every timed CLI process (both sides): with it, every Node.js process parses that certificate bundle at start (`node -e 0`: 508M instructions with it, 95M without), a constant that would sit on both sides of each start-up ratio.';
