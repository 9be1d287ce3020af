// Contract rule 8, and the canonical form: a redirect URI is registered exactly as a client's
// redirect_uri will be compared with it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redirectUrisProblem } from '../src/apps/redirect-uris.ts';

const problem = (uri: string) => redirectUrisProblem([uri]);

describe('redirect URI rules', () => {
  test('accepts https with a host and http on a loopback host, as written', () => {
    for (const uri of [
      'https://app.example.test/callback',
      'https://app.example.test:8443/cb?x=1',
      'http://127.0.0.1:8976/callback',
      'http://[::1]:9000/cb',
      'http://localhost/cb',
    ]) {
      assert.equal(problem(uri), null, uri);
    }
  });

  test('refuses the forms rule 8 forbids', () => {
    assert.match(problem('/callback') ?? '', /is not an absolute URI$/);
    assert.match(problem('https://app.example.test/cb#part') ?? '', /must not carry a fragment$/);
    assert.match(problem('https://user:pw@app.example.test/cb') ?? '', /must not carry credentials$/);
    assert.match(problem('https://*.example.test/cb') ?? '', /must not contain a wildcard$/);
    assert.match(problem('http://app.example.test/cb') ?? '', /may use http only on 127\.0\.0\.1/);
    assert.match(problem('ftp://app.example.test/cb') ?? '', /must use https/);
  });

  test('refuses what parses into another URI: spaces, backslashes, an empty authority', () => {
    const refused: [string, string][] = [
      [' https://app.example.test/callback', 'must not contain spaces'],
      ['https://app.example.test/callback ', 'must not contain spaces'],
      ['https://app.example.test/call back', 'must not contain spaces'],
      ['https://app.example.test/callback\t', 'must not contain spaces'],
      ['https:\\\\app.example.test\\callback', 'must not contain backslashes'],
      ['https://app.example.test\\callback', 'must not contain backslashes'],
      ['https:///callback', 'must name a host'],
      ['https:app.example.test/callback', 'must name a host'],
      ['http:/127.0.0.1/callback', 'must name a host'],
      ['https://App.Example.test/callback', 'must be written exactly as https://app.example.test/callback'],
      ['https://app.example.test:443/callback', 'must be written exactly as https://app.example.test/callback'],
      ['https://app.example.test', 'must be written exactly as https://app.example.test/'],
      ['https://app.example.test/a/../callback', 'must be written exactly as https://app.example.test/callback'],
    ];
    for (const [uri, reason] of refused) {
      assert.equal(problem(uri), `redirect URI ${JSON.stringify(uri)} ${reason}`, uri);
    }
  });

  test('the list: at most five, none repeated', () => {
    const five = Array.from({ length: 5 }, (_, i) => `https://app.example.test/${i}`);
    assert.equal(redirectUrisProblem(five), null);
    assert.match(redirectUrisProblem([...five, 'https://app.example.test/5']) ?? '', /at most 5/);
    assert.match(redirectUrisProblem([five[0] as string, five[0] as string]) ?? '', /must not repeat/);
  });
});
