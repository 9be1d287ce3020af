import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { requestIdOf, trustedPeer } from '../src/index.ts';

const gatewayId = `req_${'ab'.repeat(16)}`;
const from = (remoteAddress: string, id?: string) =>
  ({ headers: id ? { 'x-request-id': id } : {}, socket: { remoteAddress } }) as unknown as IncomingMessage;

test("the gateway's X-Request-ID is taken from a trusted proxy alone, in our format alone", () => {
  const gateway = trustedPeer(['10.0.0.0/8', '127.0.0.1']);
  assert.equal(requestIdOf(from('127.0.0.1', gatewayId), gateway), gatewayId);
  assert.equal(requestIdOf(from('::ffff:10.1.2.3', gatewayId), gateway), gatewayId);
  assert.equal(requestIdOf(from('10.1.2.3', 'ab'.repeat(16)), gateway), gatewayId, "ingress-nginx's bare $req_id");
  for (const [peer, id, trust] of [
    ['192.0.2.1', gatewayId, gateway],
    ['127.0.0.1', gatewayId, trustedPeer(null)],
    ['127.0.0.1', 'req_forged"\nx', gateway],
    ['127.0.0.1', undefined, gateway],
  ] as const) {
    const id2 = requestIdOf(from(peer, id), trust);
    assert.notEqual(id2, id);
    assert.match(id2, /^req_[0-9a-f]{32}$/);
  }
});
