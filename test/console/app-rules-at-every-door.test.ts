// An app's rules (packages/3-domain/domain/src/apps/rules.ts, checkedApp) at every door that creates or edits
// an app: the domain's createApp and editApp called directly (as a seed or a migration would), the
// console's JSON API (POST /api/apps, PATCH /api/apps/{client_id}), its web UI (the new-app and
// edit-app forms, and the app page's webhook URL form) and the devplat CLI through that API (apps
// create, apps edit, apps set-webhook). For each rule a door is given a value that breaks it, on
// create and on edit, and must refuse it with the validator's own sentence, shown in its own form:
// the Refusal's detail, the Problem's detail, the page's alert (HTML-escaped), the CLI's stderr and
// exit code. Nothing is made and nothing changes.
//
// The admin API and the admin command are no door here: they find, show, suspend and unsuspend an
// app (services/admin/src/apps.ts, services/admin/src/api/apps.ts) but neither create nor edit one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cookieHosts } from '@devplat/config';
import { scopeNames } from '@devplat/contract';
import type { App } from '@devplat/db';
import { createApp, editApp } from '@devplat/domain/apps';
import { Refusal, type RefusalCode } from '@devplat/domain/refusal';
import { refusalProblemCode } from '@devplat/domain/refusal-problems';
import { html } from '@devplat/http';
import { createDeveloper } from '@devplat/test/apps';
import { consoleCall, registerDeveloper, signInToWeb } from '@devplat/test/console-api';
import { assertProblem } from '@devplat/test/http';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { developerShell } from '../../cli/test/cli.ts';
import { type AppMembers, type AppRuleSettings, checkedApp } from '../../packages/3-domain/domain/src/apps/rules.ts';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform?.close());
const prisma = () => platform.platform.database.prisma;

/** The rules' settings as the console holds them: the platform's cookie hosts, webhooks over https only. */
const settings = (): AppRuleSettings => ({
  reservedHosts: cookieHosts({
    playerClientUrl: new URL(platform.playerClient),
    consoleUrl: new URL(platform.console),
  }),
  webhooks: { allowLoopbackHttp: false },
});

/** An app every rule takes; each row below breaks one rule of it. */
const valid: Required<AppMembers> = {
  name: 'Ruled at every door',
  redirectUris: ['https://app.example.test/callback'],
  scopes: ['city.public.read'],
  webhookUrl: 'https://hooks.example.test/consent',
};

interface Rule {
  broken: string;
  /** The refusal the validator makes: proves the row breaks the rule it names. */
  code: RefusalCode;
  changes: AppMembers;
}

const rules: Rule[] = [
  { broken: 'a name of 101 characters', code: 'INVALID_INPUT', changes: { name: 'n'.repeat(101) } },
  {
    broken: 'a sixth redirect URI',
    code: 'TOO_MANY_REDIRECT_URIS',
    changes: { redirectUris: Array.from({ length: 6 }, (_, index) => `https://app.example.test/callback/${index}`) },
  },
  {
    broken: 'a redirect URI on plain http to a host not loopback',
    code: 'INVALID_REDIRECT_URI',
    changes: { redirectUris: ['http://app.example.test/callback'] },
  },
  {
    broken: 'a scope not in the catalogue',
    code: 'UNKNOWN_SCOPE',
    changes: { scopes: ['city.public.read', 'city.private.write'] },
  },
  { broken: 'a scope twice', code: 'INVALID_SCOPES', changes: { scopes: ['city.public.read', 'city.public.read'] } },
  {
    broken: 'a webhook URL on plain http to a private address',
    code: 'WEBHOOK_URL_REFUSED',
    changes: { webhookUrl: 'http://10.0.0.1/hook' },
  },
];

/** The Refusal checkedApp refuses these members with: its detail is the sentence every door must show. */
function validatorRefusal(members: AppMembers, code: RefusalCode): Refusal {
  try {
    checkedApp(members, settings());
  } catch (error) {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, code, `the validator refuses ${JSON.stringify(members)} for the rule the row names`);
    return error;
  }
  return assert.fail(`the validator took ${JSON.stringify(members)}`);
}

/** A door opened for one developer: each operation sends the members and asserts the door refused them as `refusal`. */
interface OpenDoor {
  accountId: string;
  create(members: Required<AppMembers>, refusal: Refusal): Promise<void>;
  edit(app: App, changes: AppMembers, refusal: Refusal): Promise<void>;
}

interface Door {
  name: string;
  open(): Promise<OpenDoor>;
  /** Rules the door refuses itself, before the validator, in words of its own (tested apart below). */
  refusesItself?: RefusalCode[];
}

/** The members as the console API's body names them; absent members stay absent. */
const apiBody = (members: AppMembers) => ({
  ...(members.name !== undefined && { name: members.name }),
  ...(members.redirectUris !== undefined && { redirect_uris: members.redirectUris }),
  ...(members.scopes !== undefined && { scopes: members.scopes }),
  ...(members.webhookUrl !== undefined && { webhook_url: members.webhookUrl }),
});

/** The members as devplat's options (apps create, apps edit) take them. */
const cliOptions = (members: AppMembers) => [
  ...(members.name !== undefined ? ['--name', members.name] : []),
  ...(members.redirectUris ?? []).flatMap((uri) => ['--redirect-uri', uri]),
  ...(members.scopes ?? []).flatMap((scope) => ['--scope', scope]),
  ...(typeof members.webhookUrl === 'string' ? ['--webhook-url', members.webhookUrl] : []),
];

type FormFields = [name: string, value: string][];

/** Name, redirect URIs (one per line) and scopes (a checkbox each), as the new-app and edit-app forms send them. */
const formFields = (
  csrf: string,
  { name, redirectUris, scopes }: Pick<App, 'name' | 'redirectUris' | 'scopes'>,
): FormFields => [
  ['csrf', csrf],
  ['name', name],
  ['redirect_uris', redirectUris.join('\n')],
  ...scopes.map((scope): FormFields[number] => ['scopes', scope]),
];

/** A developer signed in to devplat on the test console. */
async function cliShell() {
  const developer = await registerDeveloper(platform.console);
  const shell = developerShell(platform.console);
  const login = await shell.run(['login', '--email', developer.email], {
    env: { DEVPLAT_PASSWORD: developer.password },
  });
  assert.equal(login.code, 0, login.stderr);
  return { accountId: developer.id, shell };
}

const domain: Door = {
  name: 'the domain (createApp, editApp called directly)',
  async open() {
    const developer = await createDeveloper(prisma());
    const by = { accountId: developer.id };
    const noDirectory = { changed: async () => {} };
    const refusedAs = (work: Promise<unknown>, { code, detail }: Refusal) =>
      assert.rejects(work, (error) => {
        assert.ok(error instanceof Refusal, String(error));
        assert.deepEqual({ code: error.code, detail: error.detail }, { code, detail });
        return true;
      });
    return {
      accountId: developer.id,
      create: (members, refusal) =>
        refusedAs(createApp(prisma(), by, { accountId: developer.id, ...members, ...settings() }), refusal),
      edit: (app, changes, refusal) =>
        refusedAs(editApp(prisma(), noDirectory, by, app.id, { ...changes, ...settings() }, 'p'.repeat(32)), refusal),
    };
  },
};

const consoleApi: Door = {
  name: 'the console JSON API (POST /api/apps, PATCH /api/apps/{client_id})',
  async open() {
    const developer = await registerDeveloper(platform.console);
    const refused = async (method: string, path: string, members: AppMembers, refusal: Refusal) => {
      const answer = await consoleCall(platform.console, method, path, {
        token: developer.token,
        body: apiBody(members),
      });
      assertProblem(answer, 400, refusalProblemCode(refusal.code, 'console'));
      assert.equal(answer.json.detail, refusal.detail);
    };
    return {
      accountId: developer.id,
      create: (members, refusal) => refused('POST', '/apps', members, refusal),
      edit: (app, changes, refusal) => refused('PATCH', `/apps/${app.clientId}`, changes, refusal),
    };
  },
};

const webUi: Door = {
  name: 'the console web UI (the new-app and edit-app forms, the webhook URL form)',
  async open() {
    const developer = await registerDeveloper(platform.console);
    const web = await signInToWeb(platform.console, developer);
    const newAppForm = await (await web.get('/apps/new')).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(newAppForm)?.[1] ?? '';
    // The scopes checkboxes repeat a field: the session's post copies a URLSearchParams as it is.
    const post = (path: string, fields: FormFields) =>
      web.post(path, new URLSearchParams(fields) as unknown as Record<string, string>);
    /** 400, the sentence (HTML-escaped) as the page's alert, and the form again when `form` is given. */
    const refused = async (answer: Response, { detail }: Refusal, form?: string) => {
      const page = await answer.text();
      assert.equal(answer.status, 400, page);
      assert.ok(page.includes(`role="alert">${html`${detail}`}</p>`), `the page says ${detail}:\n${page}`);
      if (form) assert.ok(page.includes(`<form method="post" action="${form}">`), `the form to ${form} again`);
    };
    return {
      accountId: developer.id,
      async create(members, refusal) {
        const fields: FormFields = [...formFields(csrf, members), ['webhook_url', members.webhookUrl ?? '']];
        await refused(await post('/apps', fields), refusal, '/apps');
      },
      async edit(app, { webhookUrl, ...changes }, refusal) {
        // The edit form holds name, redirect URIs and scopes, filled in with the app's; the webhook
        // URL has a form of its own on the app's page, which answers a refusal with an error page.
        if (webhookUrl !== undefined) {
          const fields: FormFields = [
            ['csrf', csrf],
            ['webhook_url', webhookUrl ?? ''],
          ];
          return refused(await post(`/apps/${app.clientId}/webhook`, fields), refusal);
        }
        const edit = `/apps/${app.clientId}/edit`;
        await refused(await post(edit, formFields(csrf, { ...app, ...changes })), refusal, edit);
      },
    };
  },
};

const cli: Door = {
  name: 'devplat through the console API (apps create, apps edit, apps set-webhook)',
  // Its --scope option takes only the catalogue's names (choices: scopeNames).
  refusesItself: ['UNKNOWN_SCOPE'],
  async open() {
    const { accountId, shell } = await cliShell();
    const refused = async (args: string[], { code, detail }: Refusal) => {
      const result = await shell.run(args);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.split('\n')[0], `Error: ${detail} (${refusalProblemCode(code, 'console')})`);
    };
    return {
      accountId,
      create: (members, refusal) => refused(['apps', 'create', ...cliOptions(members)], refusal),
      edit: (app, { webhookUrl, ...changes }, refusal) =>
        refused(
          typeof webhookUrl === 'string'
            ? ['apps', 'set-webhook', app.clientId, '--url', webhookUrl]
            : ['apps', 'edit', app.clientId, ...cliOptions(changes)],
          refusal,
        ),
    };
  },
};

const doors = [domain, consoleApi, webUi, cli];

/** The ids of the account's apps. */
const appsOf = async (accountId: string) =>
  (await prisma().app.findMany({ where: { accountId }, select: { id: true }, orderBy: { id: 'asc' } })).map(
    (app) => app.id,
  );

/** An app of the account, made as a seed would: the app each edit is tried on. */
const appOf = async (accountId: string) =>
  (await createApp(prisma(), { accountId }, { accountId, ...valid, ...settings() })).app;

const appNow = (app: App) => prisma().app.findUniqueOrThrow({ where: { id: app.id } });

for (const door of doors) {
  describe(`${door.name}: each rule refused in the validator's words`, () => {
    let open: OpenDoor;
    let app: App;
    before(async () => {
      open = await door.open();
      app = await appOf(open.accountId);
    });

    for (const rule of rules.filter(({ code }) => !door.refusesItself?.includes(code))) {
      test(`create with ${rule.broken}: refused; no app is made`, async () => {
        const members = { ...valid, ...rule.changes };
        const made = await appsOf(open.accountId);
        await open.create(members, validatorRefusal(members, rule.code));
        assert.deepEqual(await appsOf(open.accountId), made, 'no app was made');
      });

      test(`edit with ${rule.broken}: refused; the app keeps its values`, async () => {
        const kept = await appNow(app);
        await open.edit(app, rule.changes, validatorRefusal(rule.changes, rule.code));
        assert.deepEqual(await appNow(app), kept, 'the app is as it was');
      });
    }
  });
}

describe("devplat's own check, before the console", () => {
  test('a scope not in the catalogue: usage error (exit 2) in its own words, on create and edit; nothing made or changed', async () => {
    const { accountId, shell } = await cliShell();
    const app = await appOf(accountId);
    const kept = await appNow(app);
    const unknown = 'city.private.write';
    for (const args of [
      ['apps', 'create', ...cliOptions({ ...valid, scopes: [unknown] })],
      ['apps', 'edit', app.clientId, '--scope', unknown],
    ]) {
      const result = await shell.run(args);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(
        result.stderr.split('\n')[0],
        `Error: --scope must be one of ${scopeNames.join(', ')} (got "${unknown}").`,
      );
    }
    assert.deepEqual(await appsOf(accountId), [app.id], 'no app was made');
    assert.deepEqual(await appNow(app), kept, 'the app is as it was');
  });
});
