import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ContractValidator, contractDocumentPath, contractVersions, loadContractDocument } from '../src/openapi.ts';

describe('contract documents', () => {
  for (const version of contractVersions) {
    test(`${version} is a valid OpenAPI 3.1 document`, async () => {
      const result = await new Validator().validate(contractDocumentPath(version));
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      const document = loadContractDocument(version) as { openapi: string; info: { version: string } };
      assert.equal(document.openapi, '3.1.1');
      assert.equal(document.info.version, version);
    });
  }

  test('1.1.0 has the eight operations, 1.0.0 the three public ones and GET /cities', () => {
    assert.deepEqual(new ContractValidator('1.1.0').operations().sort(), [
      'GET /.well-known/oauth-authorization-server',
      'GET /capabilities',
      'GET /cities',
      'GET /me',
      'GET /regions',
      'GET /status',
      'POST /oauth/revoke',
      'POST /oauth/token',
    ]);
    assert.deepEqual(new ContractValidator('1.0.0').operations().sort(), [
      'GET /capabilities',
      'GET /cities',
      'GET /regions',
      'GET /status',
    ]);
  });

  test('the validator rejects what the contract forbids', () => {
    const contract = new ContractValidator('1.1.0');
    const problem = {
      type: 'urn:x',
      title: 't',
      status: 404,
      detail: 'd',
      instance: '/x',
      code: 'NOT_FOUND',
      request_id: 'r',
    };
    assert.deepEqual(contract.checkSchema('Problem', problem), []);
    assert.notDeepEqual(contract.checkSchema('Problem', { ...problem, extra: 1 }), []);
    assert.notDeepEqual(contract.checkSchema('Problem', { ...problem, status: 200 }), []);
    assert.notDeepEqual(contract.checkSchema('Me', { api_version: '1.0', sub: 'player-42', display_name: null }), []);
    const headers = new Headers({ 'content-type': 'application/json' });
    const body = JSON.stringify({ api_version: '1.0', environment: 'sandbox', capabilities: { commerce: 'no' } });
    assert.notDeepEqual(contract.check({ method: 'GET', path: '/capabilities', status: 200, headers, body }), []);
    assert.notDeepEqual(contract.check({ method: 'GET', path: '/capabilities', status: 418, headers, body }), []);
  });
});
