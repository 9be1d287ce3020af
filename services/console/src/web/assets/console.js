// The console's one script, served at /assets/console.js (assets.ts) under the console pages' CSP
// (script-src 'self', connect-src 'self'). It only adds conveniences to pages that work without it:
//   - a Copy button (copy.ts) copies the text of the element its data-copy names;
//   - the request log's first page ([data-live-log], request-log.ts) follows the log's stream and
//     puts each call at the top of the table as it is answered, in the same cells the server writes.
// Everything it writes is text (textContent), never HTML.

const announcer = document.createElement('p');
announcer.className = 'visually-hidden';
announcer.setAttribute('role', 'status');
document.body.append(announcer);

const say = (text) => {
  announcer.textContent = text;
};

async function copyText(text) {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  throw new Error('no clipboard');
}

for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy);
  if (!target) continue;
  const what = (button.getAttribute('aria-label') ?? 'Copy').replace(/^Copy /, '');
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await copyText(target.textContent ?? '');
      button.textContent = 'Copied';
      say(`Copied ${what}.`);
      setTimeout(() => {
        button.textContent = 'Copy';
      }, 2000);
    } catch {
      say(`Could not copy ${what}: select it and copy it by hand.`);
    }
  });
}

// As time.ts writes a time, to the second (request-log.ts): "2 Dec 2026, 16:26:15 UTC".
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (value) => String(value).padStart(2, '0');
const readableSeconds = (at) =>
  `${at.getUTCDate()} ${months[at.getUTCMonth()]} ${at.getUTCFullYear()}, ` +
  `${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())}:${twoDigits(at.getUTCSeconds())} UTC`;

const element = (name, text, attributes = {}) => {
  const made = document.createElement(name);
  if (text !== undefined) made.textContent = text;
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, value);
  return made;
};

const cell = (...children) => {
  const td = document.createElement('td');
  td.append(...children);
  return td;
};

/** A log entry as the server's row (request-log.ts): when, operation, status, error, request id, latency, details. */
function entryRow(entry) {
  const parts = [];
  if (!entry.client_authenticated) parts.push([element('strong', 'client authentication failed')]);
  if (entry.grant_type) parts.push([element('code', entry.grant_type)]);
  if (entry.subject) parts.push(['subject ', element('code', entry.subject)]);
  const details = parts.flatMap((part, index) => (index > 0 ? [', ', ...part] : part));
  const row = document.createElement('tr');
  row.dataset.entry = entry.id;
  row.append(
    cell(element('time', readableSeconds(new Date(entry.at)), { datetime: entry.at, title: entry.at })),
    cell(entry.operation),
    cell(String(entry.status)),
    cell(...(entry.error ? [element('code', entry.error)] : [])),
    cell(element('code', entry.request_id)),
    cell(`${entry.latency_ms} ms`),
    cell(...details),
  );
  return row;
}

const live = document.querySelector('[data-live-log]');
if (live && 'EventSource' in window) {
  const rows = live.querySelector('tbody');
  const status = document.getElementById('live-status');
  const source = new EventSource(live.dataset.liveLog);
  source.addEventListener('open', () => {
    if (status) status.textContent = 'Live: each new call appears at the top as it is answered.';
  });
  source.addEventListener('request', (event) => {
    const entry = JSON.parse(event.data);
    if (rows.querySelector(`tr[data-entry="${CSS.escape(entry.id)}"]`)) return;
    live.hidden = false;
    document.getElementById('log-empty')?.remove();
    rows.prepend(entryRow(entry));
  });
  source.addEventListener('error', () => {
    if (status && source.readyState === EventSource.CLOSED) {
      status.textContent = 'Not live any more: load the page again to see new calls.';
    }
  });
}
