// The pairwise subject: the contract's shape, stable per app, different across apps, and the same
// value byte for byte as every sub already handed out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idFormats } from '@devplat/contract';
import { pairwiseSubject } from '../src/consents/index.ts';

const secret = 'p'.repeat(32);
const player = '00000000-0000-4000-8000-000000000001';
const app = `svc_${'a'.repeat(26)}`;

test('ps_ and 32 base64url characters of the HMAC, stable per app and different across apps', () => {
  const sub = pairwiseSubject(secret, app, player);
  assert.equal(sub, 'ps_yLSOnraZeL3VQiNrHHla9At3gwJ-tR6z');
  assert.match(sub, idFormats.pairwiseSubject);
  assert.equal(pairwiseSubject(secret, app, player), sub);
  assert.notEqual(pairwiseSubject(secret, `svc_${'b'.repeat(26)}`, player), sub);
  assert.notEqual(pairwiseSubject('q'.repeat(32), app, player), sub);
});
