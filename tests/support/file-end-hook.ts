// A setup file (vitest.config.ts `setupFiles`): run before every test file, so each file gets this hook; it is
// registered before the file's own hooks, so it runs after them (vitest runs after-hooks in reverse order).
import { afterAll } from 'vitest';
import { endFile } from './at-file-end.js';

afterAll(endFile);
