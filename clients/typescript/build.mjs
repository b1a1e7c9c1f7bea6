// The one self-contained browser ES module (dist/browser/leaderboard-client.js): the compiled SDK and
// openapi-fetch in one file that a page imports with no bundler. platform "browser": a Node-only import fails here.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/index.js'],
  outfile: 'dist/browser/leaderboard-client.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  sourcemap: true,
  legalComments: 'inline',
  logLevel: 'warning',
});
