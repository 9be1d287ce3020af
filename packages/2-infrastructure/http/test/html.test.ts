import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorMessage, hiddenField, html, noticeMessage, siteLayout, trustedHtml } from '../src/index.ts';

const hostile = `<script>alert("x")</script> ' " & < >`;
const inert = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39; &quot; &amp; &lt; &gt;';

describe('the html template', () => {
  test('escapes a value in text, in an attribute value and inside a list', () => {
    const page = html`<p title="${hostile}" data-x='${hostile}'>${hostile}</p><ul>${[hostile, hostile].map((item) => html`<li>${item}</li>`)}</ul>`;
    assert.equal(
      page.toString(),
      `<p title="${inert}" data-x='${inert}'>${inert}</p><ul><li>${inert}</li><li>${inert}</li></ul>`,
    );
    assert.ok(!page.toString().includes('<script>'));
  });

  test('a plain list of strings is escaped item by item and joined', () => {
    assert.equal(html`<p>${['<a>', '&', 1]}</p>`.toString(), '<p>&lt;a&gt;&amp;1</p>');
  });

  test("keeps a template's own markup, and shows nothing for false, null and undefined", () => {
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(html`<p>${inner}${false}${null}${undefined}${0}</p>`.toString(), '<p><b>&lt;i&gt;</b>0</p>');
  });

  test('inserts trusted markup (written by the code) as it is', () => {
    assert.equal(html`<style>${trustedHtml('a>b{color:red}')}</style>`.toString(), '<style>a>b{color:red}</style>');
  });

  test('refuses a template with an unquoted attribute value', () => {
    assert.throws(() => html`<input value=${'x onfocus=alert(1)'}>`, /attribute value must be quoted/);
    assert.throws(() => html`<a href= ${'/'}>`, /attribute value must be quoted/);
  });

  test('the page parts escape what they show', () => {
    assert.equal(hiddenField('csrf', hostile).toString(), `<input type="hidden" name="csrf" value="${inert}">`);
    assert.equal(noticeMessage(hostile)?.toString(), `<p class="notice" role="status">${inert}</p>`);
    assert.equal(errorMessage(hostile)?.toString(), `<p class="error" role="alert">${inert}</p>`);
    assert.equal(noticeMessage(undefined), '');
  });
});

describe('the layout', () => {
  test("wraps a page in the site's layout, with the site's name after the title", () => {
    const layout = siteLayout({ name: 'Developer console', width: '52rem' });
    const page = layout({ title: hostile, header: html`<nav>n</nav>`, main: html`<h1>${hostile}</h1>` }).toString();
    assert.match(page, /^<!doctype html><html lang="en">/);
    assert.ok(page.includes(`<title>${inert} · Developer console</title>`));
    assert.ok(page.includes(`<body><nav>n</nav><main><h1>${inert}</h1></main></body>`));
    assert.match(page, /<style>body\{[^}]*max-width:52rem/);
  });

  test('a site without a name shows the title alone', () => {
    const page = siteLayout({ width: '32rem' })({ title: 'Connected apps', main: 'x' }).toString();
    assert.ok(page.includes('<title>Connected apps</title>'));
    assert.ok(page.includes('<main>x</main>'));
  });
});
