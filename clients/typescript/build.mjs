// What esbuild makes of the compiled SDK (dist/index.js):
// - the one self-contained browser ES module (dist/browser/leaderboard-client.js): the SDK, openapi-fetch and jose
//   in one file that a page imports with no bundler. platform "browser": a Node-only import fails here;
// - the CommonJS entry (dist/index.cjs) for `require('@cdk-leaderboard/client')`: the same code with openapi-fetch
//   and jose inside (jose is ESM-only), so it loads on every Node 20; `ws` stays the project's own (loaded by name).
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

await build({
  entryPoints: ['dist/index.js'],
  outfile: 'dist/index.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: ['node20'],
  external: ['ws'],
  legalComments: 'inline',
  logLevel: 'warning',
});
