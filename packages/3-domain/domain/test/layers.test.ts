// The domain's rooms have a direction: each imports only rooms below it, and what spans rooms lives
// in the workflows above them all, which no room imports. Every source file of packages/3-domain/domain/src
// is read; an import that runs back up the order (or sideways into a room not below) fails, naming
// the file and the import. Files at src/'s top (db.ts, input.ts, refusal.ts, …) are shared by all.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const src = join(import.meta.dirname, '../src');

/** Bottom first: a room may import the rooms before it. */
const floors = ['audit', 'events', 'registry', 'revocations', 'accounts', 'players', 'consents', 'apps', 'api-keys'];
const top = 'workflows';

const rooms = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

test('every folder of the domain is a room on a floor, or the workflows above them', () => {
  assert.deepEqual(rooms.toSorted(), [...floors, top].toSorted());
});

test('no import runs back up: each room imports only rooms below it, none imports the workflows', () => {
  const wrong: string[] = [];
  for (const room of rooms) {
    for (const file of readdirSync(join(src, room)).filter((name) => name.endsWith('.ts'))) {
      const text = readFileSync(join(src, room, file), 'utf8');
      for (const [, other] of text.matchAll(/from '\.\.\/([a-z-]+)\//g)) {
        if (other === undefined || other === room) continue;
        const allowed =
          room === top ? floors.includes(other) : floors.indexOf(other) < floors.indexOf(room) && other !== top;
        if (!allowed || !floors.includes(other)) wrong.push(`${room}/${file} imports ../${other}/`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});
