#!/usr/bin/env node
// The CLI as bundled by `npm run build` (scripts/build-cli.mjs): a few files to load instead of ~140 modules.
import '../dist/cli/main.js';
