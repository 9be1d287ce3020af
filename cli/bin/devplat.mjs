#!/usr/bin/env node
// The devplat command of the workspace package, as a package manager links it inside a checkout.
// Node runs the TypeScript sources directly (type stripping), so this needs a Node that can: the
// platform's Node 24. The packed CLI (npm run cli:pack, or {console_url}/downloads/devplat.tgz) is
// bundled JavaScript instead and runs on Node 20 and newer.
if (!process.features.typescript) {
  process.stderr.write(
    `devplat needs Node 24 to run from the sources (this is Node ${process.versions.node}). ` +
      'From a checkout of the platform, run it as: npm run -s devplat -- <command>\n' +
      'Or install the packed CLI, which runs on Node 20 and newer: download devplat.tgz from ' +
      'the console at /downloads/devplat.tgz, then npm install -g ./devplat.tgz\n',
  );
  process.exit(1);
}
await import('../src/main.ts');
