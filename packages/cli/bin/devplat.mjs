#!/usr/bin/env node
// The devplat command as a package manager installs it. Node runs the TypeScript sources directly
// (type stripping), so this needs a Node that can: the platform's Node 24.
if (!process.features.typescript) {
  process.stderr.write(
    `devplat needs Node 24 (this is Node ${process.versions.node}). ` +
      'From a checkout of the platform, run it as: npm run -s devplat -- <command>\n',
  );
  process.exit(1);
}
await import('../src/main.ts');
