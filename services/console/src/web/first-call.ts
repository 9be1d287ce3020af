// The "First call" section of an app's page: a client-credentials token, then GET /cities, in curl,
// JavaScript (Node 24's fetch) and Python (requests), with the app's client id, the token URL and
// the API base URL written in, then the next steps of a new app; above it, the links to the app's
// request log and history. The secret is never written: each snippet reads CLIENT_SECRET from the
// environment. Each prints every city's name, one a line (test/console/console-browser.test.ts runs
// them as the page shows them).
import type { AppView } from '@devplat/contract';
import { type Html, html } from '@devplat/http';
import { copyButton } from './copy.ts';

interface FirstCallSettings {
  clientId: string;
  /** The API's base URL (BASE_URL), e.g. http://127.0.0.1:8080/developer/v1. */
  apiBase: string;
}

interface Snippet {
  /** Used in the page's ids, e.g. "curl". */
  id: string;
  heading: string;
  /** How to run it, after the code. */
  run: string;
  code: string;
}

function firstCallSnippets({ clientId, apiBase }: FirstCallSettings): Snippet[] {
  const tokenUrl = `${apiBase}/oauth/token`;
  const curl = `# CLIENT_SECRET: one of this app's client secrets, set in your environment
TOKEN=$(curl -s -u "${clientId}:$CLIENT_SECRET" \\
  -d grant_type=client_credentials -d scope=city.public.read \\
  "${tokenUrl}" | jq -r .access_token)

curl -s -H "Authorization: Bearer $TOKEN" "${apiBase}/cities?limit=100" | jq -r '.data[].name'
`;
  const javascript = `const tokenUrl = '${tokenUrl}';
const apiBase = '${apiBase}';
const clientId = '${clientId}';
const clientSecret = process.env.CLIENT_SECRET; // one of this app's client secrets

const token = await fetch(tokenUrl, {
  method: 'POST',
  headers: { authorization: \`Basic \${btoa(\`\${clientId}:\${clientSecret}\`)}\` },
  body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'city.public.read' }),
});
if (!token.ok) throw new Error(await token.text());
const { access_token } = await token.json();

const cities = await fetch(\`\${apiBase}/cities?limit=100\`, {
  headers: { authorization: \`Bearer \${access_token}\` },
});
if (!cities.ok) throw new Error(await cities.text());
for (const city of (await cities.json()).data) console.log(city.name);
`;
  const python = `import os

import requests

TOKEN_URL = '${tokenUrl}'
API_BASE = '${apiBase}'
CLIENT_ID = '${clientId}'
CLIENT_SECRET = os.environ['CLIENT_SECRET']  # one of this app's client secrets

token = requests.post(TOKEN_URL, auth=(CLIENT_ID, CLIENT_SECRET), timeout=10,
                      data={'grant_type': 'client_credentials', 'scope': 'city.public.read'})
token.raise_for_status()
cities = requests.get(f'{API_BASE}/cities', params={'limit': 100}, timeout=10,
                      headers={'Authorization': f"Bearer {token.json()['access_token']}"})
cities.raise_for_status()
for city in cities.json()['data']:
    print(city['name'])
`;
  return [
    { id: 'curl', heading: 'curl', run: 'Needs curl and jq.', code: curl },
    {
      id: 'javascript',
      heading: 'JavaScript (Node 24, fetch)',
      run: 'Save as first-call.mjs, then node first-call.mjs: nothing to install.',
      code: javascript,
    },
    {
      id: 'python',
      heading: 'Python (requests)',
      run: 'pip install requests (or apt install python3-requests), then python3 first-call.py.',
      code: python,
    },
  ];
}

/**
 * The app's request log and history links, then its first call, in curl, JavaScript and Python: its
 * client id and the API's URLs written in, the secret read from the environment (never on the page).
 * Then where a new app goes next.
 */
export function firstCallSection(app: AppView, apiBase: string): Html {
  const base = `/apps/${app.client_id}`;
  const snippets = firstCallSnippets({ clientId: app.client_id, apiBase }).map(
    (snippet, index) => html`<details ${index === 0 && html`open`}><summary>${snippet.heading}</summary>
<pre tabindex="0" data-testid="first-call-${snippet.id}"><code id="first-call-${snippet.id}-code">${snippet.code}</code></pre>
${copyButton(`first-call-${snippet.id}-code`, `the ${snippet.heading} snippet`)}<p><small>${snippet.run}</small></p></details>`,
  );
  const missingScope =
    !app.scopes.includes('city.public.read') &&
    html`<p><strong>This app lacks the <code>city.public.read</code> scope:</strong> add it (Edit) for this call to work.</p>`;
  const inactive =
    app.status !== 'active' && html`<p><strong>The app is not active:</strong> it gets no token until it is.</p>`;
  return html`<nav aria-label="This app's records"><p><a href="${base}/requests">Request log</a>: its calls, each with its
status, error code and request ID · <a href="${base}/history">History</a>: every change to it</p></nav>
<h2>First call</h2>
<p>Get an app token (client credentials) and call <code>/cities</code> with it. Each snippet reads the client secret
from <code>CLIENT_SECRET</code> in your environment: set it to one of the app's client secrets, which are shown only once.</p>
${missingScope}${inactive}${snippets}
<p>Each call shows on the app's <a href="${base}/requests">request log</a> within a second, a refused one with its error
code (or run <code>devplat logs tail ${app.client_id}</code>); every change to the app, by you or by the platform, is on
its <a href="${base}/history">history</a>.</p>
<h3>Next steps</h3>
<ul>
<li>To sign players in: <a href="${base}/edit">add a redirect URI</a>, then follow the
<a href="/docs/guide-app-developer.html">app developer's guide</a> (authorization code with PKCE).</li>
<li>To sign in as a player while you test: <a href="/players">create a sandbox player</a>.</li>
<li>To hear when players allow or remove the app: <a href="#webhooks">set a webhook URL</a> below.</li>
</ul>`;
}
